import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// `practice` (issue 12 item 5): one-player unrated games of a bank or of the mistakes
    /// notebook, and questions learned in practice leaving the notebook.
    @Suite(.serialized) struct PracticeTests {
        let server: TestServer

        init() throws {
            server = try TestServer.start()
        }

        /// Plays every question of `duel` to `complete`, answering right when `right`.
        func playAlone(_ player: TestPlayer, duel: String, right: Bool = true) async throws -> JSONValue {
            try await DuelServerTests.playAlone(server, player, duel: duel, right: right)
        }

        /// `games`' progress rows of `player` (game → learned, XP): read once, since a game's
        /// `complete` is sent only after its progress is granted (docs/PROTOCOL.md).
        func paidGames(_ player: TestPlayer, _ games: [String], on db: PGConnection) throws
            -> [String: (learned: Int, xp: Int)] {
            var paid: [String: (learned: Int, xp: Int)] = [:]
            for row in try db.query("""
                SELECT duel_id::text AS duel, learned, xp FROM game_progress
                 WHERE player_id = \(player.id)::uuid AND duel_id = ANY(\(PGArray(games))::uuid[])
                """) {
                paid[try row.string("duel")] = (try row.int("learned"), try row.int("xp"))
            }
            return paid
        }

        /// A miss in a game that paid its player nothing (left unanswered) stays in the notebook and
        /// can be learned, but learning it earns no XP: else such games, or one's own quiz, would
        /// supply misses for free (bench/NOTES.md, item 56).
        @Test func aMissInAGameThatPaidNothingEarnsNoXPWhenLearned() async throws {
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            guard await a.client.nextEvent("question") != nil else { throw DuelClientError.timeout("question") }
            _ = try await b.client.request("forfeit", ["duel_id": .string(duel)])
            guard await a.client.nextEvent("complete") != nil else { throw DuelClientError.timeout("complete") }
            let (missed, practices) = try await practiceTheNotebook(server, a)
            let after = try await a.client.request("mistakes", ["limit": 10])
            #expect(after["data"]?["learned_count"]?.integer == Int64(missed.count), "\(after.serialized)")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM game_progress WHERE duel_id = \(duel)::uuid")[0].int("n") == 0,
                    "the unanswered game paid nobody")
            let paid = try paidGames(a, practices, on: db)
            #expect(paid[practices[1]]?.learned == 0 && paid[practices[1]]?.xp == paid[practices[0]]?.xp, "\(paid)")
        }

        /// A practice game an operator ends grants nothing, and counts nothing towards learning
        /// either: its right answers leave no practice row (bench/NOTES.md, item 56).
        @Test func aPracticeGameAnOperatorEndsCountsNoRightAnswer() async throws {
            server.stop()
            // 10 s questions: the game must still be running when the operator's end arrives.
            let server = try TestServer.start { $0.duel.answerWindowMs = 10_000 }
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let reply = try await a.client.request("practice", ["bank": "world-capitals"])
            guard let game = reply["data"]?["duel_id"]?.string,
                  let question = await a.client.nextEvent("question") else { throw DuelClientError.timeout("\(reply.serialized)") }
            #expect(question["record"]?["question"]?["index"] == 0)
            let answer = try await a.client.request("answer", [
                "duel_id": .string(game), "question_index": 0, "choice": .number(try correctChoice(server, duel: game, index: 0)),
            ])
            #expect(answer["data"]?["correct"] == true, "\(answer.serialized)")
            let db = try server.database()
            defer { db.close() }
            try db.query("SELECT ops.end_duel(\(game)::uuid, 'ended in a test')")
            var complete: JSONValue?
            while complete == nil, let event = await a.client.nextEvent("complete", timeout: .seconds(5)) {
                if event["duel_id"] == .string(game) { complete = event }
            }
            // Ended by the operator, not by its last deadline (which would count the answer).
            #expect(complete?["record"]?["result"]?["reason"] == "ended", "\(complete?.serialized ?? "no complete")")
            #expect(try db.query("SELECT count(*) AS n FROM practice_progress WHERE player_id = \(a.id)::uuid")[0].int("n") == 0)
        }

        @Test func aPracticeGameIsOnePlayerUnratedAndInHistory() async throws {
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let reply = try await a.client.request("practice", ["bank": "world-capitals"])
            guard let duel = reply["data"]?["duel_id"]?.string else { throw DuelClientError.timeout("\(reply.serialized)") }
            let start = await a.client.nextEvent("init")
            #expect(start?["duel_id"] == .string(duel))
            #expect(start?["record"]?["mode"] == "practice" && start?["record"]?["rated"] == false)
            guard case .array(let seated)? = start?["record"]?["players"] else { throw DuelClientError.timeout("players") }
            #expect(seated.count == 1)
            let complete = try await playAlone(a, duel: duel)
            let result = complete["record"]?["result"]
            #expect(result?["reason"] == "completed" && result?["winner"] == .null)
            #expect(result?["placements"]?[a.id] == 1)
            #expect(result?["ratings"]?[a.id]?["before"] == result?["ratings"]?[a.id]?["after"])
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM rating_history WHERE duel_id = \(duel)::uuid")[0].int("n") == 0)
            let history = try await a.client.request("history", ["limit": 5])
            guard case .array(let duels)? = history["data"]?["duels"] else { throw DuelClientError.timeout("history") }
            #expect(duels.first?["id"] == .string(duel) && duels.first?["mode"] == "practice")
            // Free again: a ranked queue works.
            #expect(try await a.client.request("queue", ["bank": "world-capitals"])["ok"] == true)
        }

        @Test func practiceRefusalsChangeNothing() async throws {
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            #expect(try await a.client.request("practice")["code"] == "bad_request")
            #expect(try await a.client.request("practice", ["mistakes": "yes"])["code"] == "bad_request")
            #expect(try await a.client.request("practice", ["bank": "no-such-bank"])["code"] == "unknown_bank")
            #expect(try await a.client.request("practice", ["mistakes": true])["code"] == "bank_empty")
            _ = try await a.client.request("queue", ["bank": "world-capitals"])
            #expect(try await a.client.request("practice", ["bank": "world-capitals"])["code"] == "already_queued")
            let (b, _, _) = try await startDuel(server.url, bank: "general-science")
            #expect(try await b.client.request("practice", ["bank": "world-capitals"])["code"] == "in_duel")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM duels WHERE mode = 'practice'")[0].int("n") == 0)
        }

        @Test func twoRightPracticeGamesTakeAMistakeOutOfTheNotebook() async throws {
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            // a misses question 0, then b forfeits: question 0 is a's one mistake.
            try await missFirstQuestion(server, a, b, duel: duel)
            let before = try await a.client.request("mistakes", ["limit": 10])
            guard case .array(let missed)? = before["data"]?["questions"] else { throw DuelClientError.timeout("mistakes") }
            #expect(missed.count == 1 && before["data"]?["learned_count"] == 0)
            let asked = missed[0]["question_id"]
            var practices: [String] = []
            for game in 1...2 {
                let reply = try await a.client.request("practice", ["mistakes": true])
                guard let practice = reply["data"]?["duel_id"]?.string else { throw DuelClientError.timeout("\(reply.serialized)") }
                practices.append(practice)
                let start = await a.client.nextEvent("init")
                #expect(start?["record"]?["question_count"] == 1)
                _ = try await playAlone(a, duel: practice)
                let now = try await a.client.request("mistakes", ["limit": 10])
                guard case .array(let left)? = now["data"]?["questions"] else { throw DuelClientError.timeout("mistakes") }
                if game == 1 {
                    #expect(left.map { $0["question_id"] } == [asked], "one right game is not enough")
                    #expect(now["data"]?["learned_count"] == 0)
                } else {
                    #expect(left.isEmpty)
                    #expect(now["data"]?["learned_count"] == 1)
                }
            }
            #expect(try await a.client.request("practice", ["mistakes": true])["code"] == "bank_empty")
            let db = try server.database()
            defer { db.close() }
            // The second game made the mistake learned, and its progress says so (mistake_learned's
            // XP, which weekly goals and learned_20 count), granted by the progress settler in a
            // later transaction than the count's.
            let paid = try paidGames(a, practices, on: db)
            let learnedXP = try db.query("SELECT xp FROM progress_rules WHERE rule = 'mistake_learned'")[0].int("xp")
            #expect(paid[practices[0]]?.learned == 0 && paid[practices[1]]?.learned == 1, "\(paid)")
            #expect((paid[practices[1]]?.xp ?? 0) - (paid[practices[0]]?.xp ?? 0) == learnedXP, "\(paid)")

            // A new miss of the learned question (a later finished duel, written directly): it is
            // back in the notebook, and learning it takes two right practice games again.
            let c = try await TestPlayer.signUp(server.url)
            try db.execute(script: """
                DO $$
                DECLARE d uuid;
                BEGIN
                    INSERT INTO duels (bank_id, player_a, player_b, state, last_seq, finished_at,
                                       finish_reason, questions_opened)
                    VALUES ((SELECT bank_id FROM questions WHERE id = \(asked?.integer ?? 0)), '\(a.id)', '\(c.id)',
                            'finished', 1, now() + interval '1 second', 'completed', 1)
                    RETURNING id INTO d;
                    INSERT INTO duel_questions VALUES (d, 0, \(asked?.integer ?? 0));
                    -- A finished duel keeps its final record (ops.duel_anomalies, final_record).
                    INSERT INTO duel_events (duel_id, seq, kind, at_ms, record) VALUES (d, 1, 'complete', 0, '{}');
                END $$;
                """)
            for game in 0...2 {
                let now = try await a.client.request("mistakes", ["limit": 10])
                guard case .array(let left)? = now["data"]?["questions"] else { throw DuelClientError.timeout("mistakes") }
                // The operators' view says the same as the server's read (one judgement, is_learned).
                #expect(try db.query("SELECT count(*) AS n FROM mistakes_notebook WHERE player_id = \(a.id)::uuid")[0]
                    .int("n") == left.count, "game \(game)")
                if game < 2 {
                    // Each miss is a line: once the count restarts, the earlier miss shows again too.
                    #expect(Set(left.map { $0["question_id"]?.integer }) == [asked?.integer], "game \(game): in the notebook")
                } else {
                    #expect(left.isEmpty, "two right games since the new miss learn it again")
                    #expect(now["data"]?["learned_count"] == 1)
                    break
                }
                try await Task.sleep(for: .milliseconds(1_100))  // past the miss's finish time
                let reply = try await a.client.request("practice", ["mistakes": true])
                guard let practice = reply["data"]?["duel_id"]?.string else { throw DuelClientError.timeout("\(reply.serialized)") }
                _ = await a.client.nextEvent("init")
                _ = try await playAlone(a, duel: practice)
            }
        }
    }
}
