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

        /// The payloads of the whole server frames (unmasked, lengths below 65,536) in `bytes`.
        func payloads(_ bytes: [UInt8]) -> [String] {
            var texts: [String] = []
            var at = 0
            while at + 2 <= bytes.count {
                var length = Int(bytes[at + 1] & 0x7F)
                var header = 2
                if length == 126 {
                    length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
                    header = 4
                }
                guard at + header + length <= bytes.count else { break }
                texts.append(String(decoding: bytes[(at + header)..<(at + header + length)], as: UTF8.self))
                at += header + length
            }
            return texts
        }

        /// Replies are written at the end of the loop's turn (``LWSServer/flushQueued()``), up to
        /// 64 in one send; the rest of a turn's go at the writable callbacks that follow. Across
        /// both ways, and across turns, every reply arrives once and in the order of the requests.
        @Test func repliesKeepTheirOrderAcrossTurnsAndTheBatchBound() throws {
            let server = try TestServer.start { config in
                config.limits.messageBurst = 400
                config.limits.messagesPerSecond = 1_000
            }
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            let requests = 300
            let frames = (1...requests).map { maskedFrame(opcode: 0x1, Array(#"{"op":"no_such_op","ref":\#($0)}"#.utf8)) }
            // 150 in one write (more than a batch in one turn), then the rest in small writes
            // (turns of their own, some while earlier replies may still wait).
            let first = Array(frames[0..<150].joined())
            _ = first.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            for chunk in stride(from: 150, to: requests, by: 10) {
                let bytes = Array(frames[chunk..<min(chunk + 10, requests)].joined())
                _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
                usleep(1_000)
            }
            let replies = payloads(readFrames(fd, count: requests))
            let refs = replies.compactMap { reply -> Int? in
                guard let range = reply.range(of: #""ref":"#) else { return nil }
                return Int(reply[range.upperBound...].prefix { $0.isNumber })
            }
            #expect(replies.count == requests)
            #expect(refs == Array(1...requests), "\(refs.prefix(80))")
        }

        @Test func repliesQueuedTogetherLeaveInOneSend() throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            // In one write, within the burst (40): the error replies are queued while the read is
            // handled, and written at the end of that turn of the loop, together.
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
