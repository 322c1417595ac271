import CTCPInfo
import Foundation
import Testing

extension ServerTests {
    /// Replies queued together leave in one send (``LWSProtocolTable/txPacketSize``). With lws's
    /// default each send stopped at 1,044 bytes and the rest waited for later writable callbacks:
    /// several sends, epoll_ctl calls and loop passes for two events (bench/NOTES.md, item 36).
    @Suite(.serialized) struct SendSizeTests {
        /// Reads server frames until `count` have arrived; returns their bytes.
        func readFrames(_ fd: Int32, count: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            var frames = 0
            var at = 0
            while frames < count, let chunk = readSome(fd) {
                bytes += chunk
                // Whole frames so far: a header (2 or 4 bytes here) and its payload.
                while at + 2 <= bytes.count {
                    var length = Int(bytes[at + 1] & 0x7F)
                    var header = 2
                    if length == 126 {
                        guard at + 4 <= bytes.count else { break }
                        length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                        header = 4
                    }
                    guard at + header + length <= bytes.count else { break }
                    at += header + length
                    frames += 1
                }
            }
            return bytes
        }

        func readSome(_ fd: Int32) -> [UInt8]? {
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let got = recv(fd, &buffer, buffer.count, 0)
            return got > 0 ? Array(buffer[0..<got]) : nil
        }

        @Test func repliesQueuedTogetherLeaveInOneSend() throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            // In one write, within the burst (40): the error replies are queued while the read is
            // handled, and written at the next writable callback, together.
            let requests = 36
            let bytes = (1...requests).flatMap { maskedFrame(opcode: 0x1, Array(#"{"op":"no_such_op","ref":\#($0)}"#.utf8)) }
            let before = quizduel_tcp_segs_in(fd)
            #expect(before > 0, "TCP_INFO's segment count is readable")
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            let replies = readFrames(fd, count: requests)
            // Segments in: the replies' data, and at most an ACK of the request on its own.
            let segments = quizduel_tcp_segs_in(fd) &- before
            #expect(replies.count > 2 * 1_044, "\(replies.count) bytes of replies")
            #expect(segments <= 2, "\(replies.count) bytes came in \(segments) segments")
        }
    }
}
