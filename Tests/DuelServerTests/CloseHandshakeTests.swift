import Foundation
import Testing

extension ServerTests {
    /// RFC 6455 7.4: the server answers a close with the peer's code, also while a reply to the
    /// peer's last message is still being written (issue 10 item 11).
    @Suite(.serialized) struct CloseHandshakeTests {
        /// Reads frames until a close frame; returns its code.
        func closeCode(_ fd: Int32) -> Int? {
            while let head = readExactly(fd, 2, timeoutSeconds: 5) {
                var length = Int(head[1] & 0x7F)
                if length == 126 {
                    guard let ext = readExactly(fd, 2, timeoutSeconds: 5) else { return nil }
                    length = Int(ext[0]) << 8 | Int(ext[1])
                }
                let payload = length > 0 ? (readExactly(fd, length, timeoutSeconds: 5) ?? []) : []
                if head[0] & 0x0F == 0x8 { return payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 0 }
            }
            return nil
        }

        @Test(arguments: [1000, 1001, 3000, 4999])
        func theServerEchoesThePeersCloseCode(code: Int) throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            // A request whose reply is being written when the close arrives, in one write.
            let bytes = maskedFrame(opcode: 0x1, Array(#"{"op":"banks","ref":1}"#.utf8))
                + maskedFrame(opcode: 0x1, Array("not json".utf8))
                + maskedFrame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8))
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            #expect(closeCode(fd) == code)
        }

        /// The opcodes of the frames that arrive until a close frame, the close's included, and
        /// of any that follow it within `after` seconds.
        func opcodesUntilClose(_ fd: Int32, after: Int = 0) -> [UInt8] {
            var opcodes: [UInt8] = []
            while let head = readExactly(fd, 2, timeoutSeconds: opcodes.contains(0x8) ? after : 5) {
                var length = Int(head[1] & 0x7F)
                if length == 126 {
                    guard let ext = readExactly(fd, 2, timeoutSeconds: 5) else { break }
                    length = Int(ext[0]) << 8 | Int(ext[1])
                }
                if length > 0 { _ = readExactly(fd, length, timeoutSeconds: 5) }
                opcodes.append(head[0] & 0x0F)
                if head[0] & 0x0F == 0x8 && after == 0 { break }
            }
            return opcodes
        }

        /// RFC 6455 5.5.1: a peer sends no data after its close, so a frame that follows one is
        /// not a request: it is not run and gets no reply, and the close's echo is all that comes
        /// back (Autobahn 7.1.4 and 7.1.5; lws 4.1.6 still hands such a frame to the server).
        @Test func aFrameAfterThePeersCloseIsNotARequest() throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            let bytes = maskedFrame(opcode: 0x8, [0x03, 0xE8])
                + maskedFrame(opcode: 0x1, Array(#"{"op":"no_such_op","ref":7}"#.utf8))
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            #expect(opcodesUntilClose(fd) == [0x8])
        }

        /// Nor does anything follow the server's own close (a binary frame: 1003), also when a
        /// request arrives while lws waits up to 5 s for the peer's answer (RFC 6455 5.5.1). This
        /// held before the server checked for it too (lws 4.1.6 did not hand the request over);
        /// the check and this test keep it so.
        @Test func aFrameAfterTheServersCloseIsNotARequest() throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            // The request in a later read: one in the same read as the binary frame is dropped
            // by lws with the rest of that read.
            let binary = maskedFrame(opcode: 0x2, [1, 2, 3])
            _ = binary.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            usleep(200_000)
            let request = maskedFrame(opcode: 0x1, Array(#"{"op":"no_such_op","ref":7}"#.utf8))
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            #expect(opcodesUntilClose(fd, after: 1) == [0x8])
        }
    }
}
