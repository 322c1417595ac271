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
    }
}
