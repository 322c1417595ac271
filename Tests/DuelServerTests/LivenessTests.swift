import Foundation
import Testing

@testable import DuelServer

extension ServerTests {
    /// Quiet peers are pinged and, if they stay quiet, dropped; peers that answer pings stay.
    /// Over a raw socket, so the test sees the ping frame itself and nothing answers it by magic.
    @Suite(.serialized) struct LivenessTests {
        @Test func verdicts() {
            let liveness = Liveness(pingAfterMs: 10_000, hangupAfterMs: 30_000)
            #expect(liveness.verdict(lastHeardMs: 0, pinged: false, nowMs: 9_999) == .alive)
            #expect(liveness.verdict(lastHeardMs: 0, pinged: false, nowMs: 10_000) == .ping)
            #expect(liveness.verdict(lastHeardMs: 0, pinged: true, nowMs: 20_000) == .alive)
            #expect(liveness.verdict(lastHeardMs: 0, pinged: true, nowMs: 30_000) == .hangUp)
            #expect(liveness.verdict(lastHeardMs: 0, pinged: false, nowMs: 40_000) == .hangUp)
        }

        @Test func aPeerThatNeverAnswersIsPingedThenDropped() throws {
            let server = try TestServer.start { $0.network.pingAfterSeconds = 1; $0.network.idleTimeoutSeconds = 3 }
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            let start = Date()
            // The first thing the server sends is a ping (FIN + opcode 9, unmasked, one byte).
            #expect(readExactly(fd, 3, timeoutSeconds: 4) == [0x89, 0x01, 0x51])
            // Nothing answers it: the connection ends about 3 s after the upgrade.
            #expect(readExactly(fd, 1, timeoutSeconds: 6) == nil)
            let elapsed = Date().timeIntervalSince(start)
            #expect(elapsed > 2.5 && elapsed < 5.5, "dropped after \(elapsed) s")
        }

        @Test func aPeerThatAnswersPingsStays() throws {
            let server = try TestServer.start { $0.network.pingAfterSeconds = 1; $0.network.idleTimeoutSeconds = 3 }
            defer { server.stop() }
            let fd = try #require(upgradedSocket(port: server.port))
            defer { close(fd) }
            let until = Date().addingTimeInterval(5)
            var pings = 0
            while Date() < until {
                guard readExactly(fd, 3, timeoutSeconds: 3) == [0x89, 0x01, 0x51] else { break }
                pings += 1
                // The pong echoes the payload (FIN + opcode 10, mask bit, zero key, one byte).
                let pong: [UInt8] = [0x8A, 0x81, 0, 0, 0, 0, 0x51]
                _ = pong.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            }
            #expect(pings >= 2, "saw \(pings) pings in 5 s (hangup after 3 s)")
        }
    }
}
