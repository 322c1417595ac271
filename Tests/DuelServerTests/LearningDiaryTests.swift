import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// The learning diary over real sockets (issue 27, item 7): a goal's reminder arrives live at
    /// its time, and exactly once across a SIGKILL and a restart; notes and colours per bank.
    @Suite(.serialized) struct LearningDiaryTests {
        func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

        func items(_ value: JSONValue?) -> [JSONValue]? {
            if case .array(let items)? = value { return items }
            return nil
        }

        func reminderCount(_ server: TestServer, _ player: TestPlayer) throws -> Int {
            let db = try server.database()
            defer { db.close() }
            return try db.query("""
                SELECT count(*) AS n FROM notifications WHERE player_id = \(player.id)::uuid AND kind = 'goal_reminder'
                """)[0].int("n")
        }

        @Test func aReminderArrivesLiveAtItsTime() async throws {
            let server = try TestServer.start { $0.jobs.socialIntervalMs = 100 }
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            // 3 s ahead: a time the database's clock has passed by the time it reads it is refused.
            let at = nowMs() + 3_000
            let set = try await player.client.request("goal_set", [
                "kind": "wins", "target": 2, "remind_at": .string(Timestamp.iso8601(ms: at)),
            ])
            #expect(set["data"]?["goals"]?[0]?["remind_at"] == .string(Timestamp.iso8601(ms: at)), "\(set.serialized)")
            let event = try #require(await player.client.nextEvent("notification", timeout: .seconds(8)))
            #expect(event["record"]?["kind"] == "goal_reminder")
            #expect(event["record"]?["data"]?["kind"] == "wins" && event["record"]?["data"]?["target"] == 2)
            #expect(nowMs() >= at)
            try await Task.sleep(for: .milliseconds(400))
            #expect(try reminderCount(server, player) == 1)
            let goals = try await player.client.request("goals")
            #expect(goals["data"]?["goals"]?[0]?["reminded"] == true)
            // Refusals name the field and change nothing.
            for (bad, field) in [("yesterday", "remind_at"), (Timestamp.iso8601(ms: nowMs() - 1_000), "remind_at")] {
                let reply = try await player.client.request("goal_set", ["kind": "wins", "target": 5, "remind_at": .string(bad)])
                #expect(reply["code"] == "bad_request" && reply["message"]?.string?.hasPrefix(field) == true, "\(reply.serialized)")
            }
            #expect(try await player.client.request("goals")["data"]?["goals"]?[0]?["target"] == 2)
        }

        /// The server dies before the reminder's time; another starts after it. The reminder is
        /// sent once, by the new one.
        @Test func aReminderDueWhileTheServerWasDownArrivesOnceAfterTheRestart() async throws {
            let first = try TestServer.spawn()
            let player = try await TestPlayer.signUp(first.url)
            // Far enough ahead for the sign-up, the goal and the kill to come first on a slow machine.
            let at = nowMs() + 4_000
            let set = try await player.client.request("goal_set", [
                "kind": "games", "target": 3, "remind_at": .string(Timestamp.iso8601(ms: at)),
            ])
            #expect(set["ok"] == true, "\(set.serialized)")
            first.kill()
            #expect(try reminderCount(first, player) == 0)
            try await Task.sleep(for: .milliseconds(Int(max(0, at - nowMs())) + 300))
            let second = try TestServer.spawn(conninfo: first.conninfo, port: first.port)
            defer { second.stop() }
            let (again, _) = try await player.reconnect(second.url)
            // The restarted server's job sends it within its interval (1 s), live or stored.
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline, try reminderCount(second, player) == 0 {
                try await Task.sleep(for: .milliseconds(50))
            }
            try await Task.sleep(for: .seconds(2))
            #expect(try reminderCount(second, player) == 1)
            let listed = try await again.client.request("notifications")
            #expect(items(listed["data"]?["notifications"])?.filter { $0["kind"] == "goal_reminder" }.count == 1)
        }

        @Test func notesAndColoursPerBankArePrivate() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let set = try await a.client.request("bank_pref_set", ["bank": "world-capitals", "note": "Canberra!", "color": "#2255AA"])
            #expect(set["data"]?["bank_pref"]?["note"] == "Canberra!" && set["data"]?["bank_pref"]?["color"] == "#2255aa")
            let colourOnly = try await a.client.request("bank_pref_set", ["bank": "world-capitals", "color": .null])
            #expect(colourOnly["data"]?["bank_pref"]?["note"] == "Canberra!" && colourOnly["data"]?["bank_pref"]?["color"] == .null)
            #expect(items(try await a.client.request("bank_prefs")["data"]?["bank_prefs"])?.count == 1)
            #expect(items(try await b.client.request("bank_prefs")["data"]?["bank_prefs"])?.isEmpty == true)
            let bad = try await b.client.request("bank_pref_set", ["bank": "world-capitals", "color": "blue"])
            #expect(bad["code"] == "bad_request" && bad["message"]?.string?.hasPrefix("color") == true)
            #expect(items(try await b.client.request("bank_prefs")["data"]?["bank_prefs"])?.isEmpty == true)
        }
    }
}
