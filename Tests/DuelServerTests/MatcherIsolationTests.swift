import DuelClient
import DuelCore
import Foundation
import Testing

extension ServerTests {
    /// One bank's trouble stays in that bank (issue 10 item 7).
    @Suite(.serialized) struct MatcherIsolationTests {
        /// The next message that is an `error` with `code`, skipping others.
        func nextError(_ client: DuelClient, _ code: String, timeout: Duration) async -> JSONValue? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard let message = await client.next(timeout: deadline - ContinuousClock.now) else { return nil }
                if message["op"] == "error" && message["code"]?.string == code { return message }
            }
            return nil
        }

        @Test func aBankThatFailsToMatchDoesNotStopTheOthers() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let db = try server.database()
            defer { db.close() }
            // A fault in Postgres itself: creating a duel in the first bank (the matcher visits
            // banks in id order) raises.
            let broken = try db.query("SELECT id, slug FROM banks ORDER BY id LIMIT 1")[0]
            let brokenID = try broken.int("id"), brokenSlug = try broken.string("slug")
            let healthy = try db.query("SELECT slug FROM banks WHERE id <> \(brokenID) ORDER BY id LIMIT 1")[0].string("slug")
            try db.execute(script: """
                CREATE FUNCTION test_fail_bank() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.bank_id = \(brokenID) THEN RAISE EXCEPTION 'injected failure'; END IF;
                    RETURN NEW;
                END $$;
                CREATE TRIGGER test_fail_bank BEFORE INSERT ON duels FOR EACH ROW EXECUTE FUNCTION test_fail_bank();
                """)
            defer { try? db.execute(script: "DROP TRIGGER test_fail_bank ON duels; DROP FUNCTION test_fail_bank()") }
            let stuck = [try await TestPlayer.signUp(server.url), try await TestPlayer.signUp(server.url)]
            for player in stuck { _ = try await player.client.request("queue", ["bank": .string(brokenSlug)]) }
            try await Task.sleep(for: .milliseconds(300))
            let (a, b, duel) = try await startDuel(server.url, bank: healthy)
            #expect(!duel.isEmpty && a.id != b.id)
            // The broken bank's players are still waiting, not lost.
            let waiting = try db.query("SELECT count(*) AS n FROM match_queue WHERE bank_id = \(brokenID)")[0].int("n")
            #expect(waiting == 2)
        }

        @Test func waitersOfABankThatRanOutOfQuestionsAreTold() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let db = try server.database()
            defer { db.close() }
            let slug = try db.query("SELECT slug FROM banks ORDER BY id DESC LIMIT 1")[0].string("slug")
            let waiter = try await TestPlayer.signUp(server.url)
            #expect(try await waiter.client.request("queue", ["bank": .string(slug)])["ok"] == true)
            // An operator retires all but two questions; a duel needs three here.
            try db.execute(script: """
                UPDATE questions SET active = false
                 WHERE bank_id = (SELECT id FROM banks WHERE slug = '\(slug)')
                   AND id NOT IN (SELECT id FROM questions WHERE bank_id = (SELECT id FROM banks WHERE slug = '\(slug)')
                                  ORDER BY id LIMIT 2)
                """)
            let told = await nextError(waiter.client, "bank_empty", timeout: .seconds(5))
            #expect(told?["ref"] == .null, "\(told?.serialized ?? "nothing")")
            let left = try db.query("SELECT count(*) AS n FROM match_queue WHERE player_id = \(waiter.id)::uuid")[0].int("n")
            #expect(left == 0)
            // Queueing again is refused at once.
            #expect(try await waiter.client.request("queue", ["bank": .string(slug)])["code"] == "bank_empty")
        }
    }
}
