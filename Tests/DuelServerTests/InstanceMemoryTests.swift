import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// An instance keeps no bookkeeping, and makes no reads, for duels whose players are all
    /// on other instances (issue 10 item 14).
    @Suite(.serialized) struct InstanceMemoryTests {
        func tracked(_ server: TestServer) -> Int {
            let line = httpGet(port: server.port, "/metrics").body.split(separator: "\n")
                .first { $0.hasPrefix("quizduel_tracked_duels ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
        }

        @Test func anotherInstancesDuelsCostNothingHere() async throws {
            // Questions of 10 s: the three games must still be running at the counts below
            // (finished ones leave the book), and a slow machine ran past 1.5 s ones.
            let first = try TestServer.start { $0.duel.answerWindowMs = 10_000 }
            defer { first.stop() }
            let second = try first.another()
            defer { second.stop() }
            // Announcements flow once each instance has seen the other's heartbeat.
            try await Task.sleep(for: .seconds(2))
            var duels: [(TestPlayer, TestPlayer, String)] = []
            for _ in 0..<3 { duels.append(try await startDuel(first.url)) }
            for (a, _, duel) in duels {
                _ = await a.client.nextEvent("question")
                _ = try await a.client.request("answer", ["duel_id": .string(duel), "question_index": 0, "choice": 0])
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(tracked(first) == 3)
            #expect(tracked(second) == 0)
            // A player of one of them signs in on the second instance: now it is tracked there.
            let (_, auth) = try await duels[0].1.reconnect(second.url)
            #expect(auth["ok"] == true)
            #expect(tracked(second) == 1)
        }

        @Test func aNewDuelsAnnouncementNamesItsPlayers() {
            let ranges = [
                DuelNotification.Range(duelID: "d1", firstSeq: 1, lastSeq: 2, players: ["p1", "p2"]),
                DuelNotification.Range(duelID: "d2", firstSeq: 5, lastSeq: 7),
            ]
            let payloads = DuelNotification.payloads(origin: "abc", ranges: ranges)
            #expect(payloads == ["abc d1:1:2:p1:p2 d2:5:7"])
            #expect(DuelNotification(payload: payloads[0]) == DuelNotification(payload: "abc d1:1:2:p1:p2 d2:5:7"))
            #expect(DuelNotification(payload: payloads[0])?.ranges == ranges)
            // A practice game names one player, a room's game up to four (a payload naming one
            // used to be refused whole, losing every other duel it announced).
            let solo = DuelNotification(payload: "abc d1:1:2:p1 d2:1:1:p1:p2:p3:p4 d3:4:5")
            #expect(solo?.ranges.map(\.players) == [["p1"], ["p1", "p2", "p3", "p4"], []])
            #expect(DuelNotification(payload: "abc d1:1:2:p1:p2:p3:p4:p5") == nil)
        }
    }
}
