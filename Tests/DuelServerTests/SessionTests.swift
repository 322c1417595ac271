import DuelClient
import DuelCore
import Foundation
import Testing

extension ServerTests {
    /// Queue and session promises of PROTOCOL.md over real sockets: cancel, logout,
    /// and "when a waiting player's last connection closes, or they log out, their
    /// queue entry is removed".
    @Suite(.serialized) struct SessionTests {
        let server: TestServer

        init() throws {
            server = try TestServer.start()
        }

        @Test func aLoginDuringALiveDuelCarriesItsRecord() async throws {
            defer { server.stop() }
            let (a, _, duel) = try await startDuel(server.url)
            let other = try DuelClient(url: server.url)
            try await other.connect()
            let login = try await other.request("login", ["username": .string(a.username), "password": "correct horse battery"])
            #expect(login["data"]?["duel"]?["id"] == .string(duel), "\(login.serialized)")
            let idle = try await TestPlayer.signUp(server.url)
            let again = try DuelClient(url: server.url)
            try await again.connect()
            let plain = try await again.request("login", ["username": .string(idle.username), "password": "correct horse battery"])
            #expect(plain["ok"] == true && plain["data"]?["duel"] == nil)
        }

        func queueLength() throws -> Int {
            let db = try server.database()
            defer { db.close() }
            return try db.query("SELECT count(*) AS n FROM match_queue")[0].int("n")
        }

        /// Polls until the queue has `expected` entries (cleanup runs on a database thread).
        func waitForQueue(_ expected: Int) async throws -> Int {
            for _ in 0..<50 {
                if try queueLength() == expected { return expected }
                try await Task.sleep(for: .milliseconds(100))
            }
            return try queueLength()
        }

        @Test func cancelLeavesTheQueueAndASecondCancelIsNotQueued() async throws {
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            let queued = try await player.client.request("queue", ["bank": "general-science"])
            #expect(queued["data"]?["queued_at"]?.string != nil)
            #expect(await player.client.nextEvent("queued")?["record"]?["bank"] == "general-science")
            #expect(try await player.client.request("queue", ["bank": "world-capitals"])["code"] == "already_queued")
            #expect(try await player.client.request("cancel")["ok"] == true)
            #expect(try await player.client.request("cancel")["code"] == "not_queued")
            #expect(try await player.client.request("queue", ["bank": "no-such-bank"])["code"] == "unknown_bank")
            #expect(try queueLength() == 0)
        }

        @Test func closingTheLastConnectionRemovesTheQueueEntry() async throws {
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            let (second, _) = try await player.reconnect(server.url)
            _ = try await player.client.request("queue", ["bank": "general-science"])
            #expect(try await waitForQueue(1) == 1)
            // Another connection of the same player keeps the entry...
            player.client.close()
            _ = await player.client.waitClosed()
            try await Task.sleep(for: .milliseconds(300))
            #expect(try queueLength() == 1)
            // ...the last one removes it.
            second.client.close()
            #expect(try await waitForQueue(0) == 0)
        }

        @Test func logoutRemovesTheQueueEntryAndRevokesTheToken() async throws {
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            _ = try await player.client.request("queue", ["bank": "general-science"])
            #expect(try await player.client.request("logout")["ok"] == true)
            #expect(try await waitForQueue(0) == 0)
            #expect(try await player.client.request("queue", ["bank": "general-science"])["code"] == "unauthorized")
            let (_, auth) = try await player.reconnect(server.url)
            #expect(auth["code"] == "unauthorized")
            // Logging in again with the password works and gives a new token.
            let login = try await player.client.request("login", [
                "username": .string(player.username.uppercased()), "password": "correct horse battery",
            ])
            #expect(login["data"]?["token"]?.string != nil && login["data"]?["token"]?.string != player.token)
            #expect(try await player.client.request("login", [
                "username": .string(player.username), "password": "wrong password",
            ])["code"] == "bad_credentials")
        }

        @Test func reportsReachTheOperators() async throws {
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            let db = try server.database()
            defer { db.close() }
            let question = try db.query("SELECT min(id) AS id FROM questions")[0].int64("id")
            #expect(try await player.client.request("report", ["question_id": .int(question), "reason": "two right answers"])["ok"] == true)
            #expect(try await player.client.request("report", ["question_id": 999_999_999, "reason": "x"])["code"] == "unknown_question")
            #expect(try db.query("SELECT count(*) AS n FROM ops.open_reports")[0].int("n") == 1)
        }
    }
}
