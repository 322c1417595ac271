import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing
import TestSupport

extension ServerTests {
    /// The operators' SQL functions of migration 009, called as a login role of
    /// `quizduel_operator` (which cannot read players, sessions or duels itself), against a
    /// running server and real clients.
    @Suite(.serialized) struct OperatorToolsTests {
        let server: TestServer
        let operatorDB: PGConnection

        init() throws {
            server = try TestServer.start()
            operatorDB = try PGConnection(LeastPrivilegeTests.loginRole(in: "quizduel_operator", on: server.conninfo))
        }

        func stop() {
            operatorDB.close()
            server.stop()
        }

        func nextMessage(_ client: DuelClient, where matches: (JSONValue) -> Bool, timeout: Duration = .seconds(5)) async -> JSONValue? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                guard let message = await client.next(timeout: deadline - ContinuousClock.now) else { return nil }
                if matches(message) { return message }
            }
            return nil
        }

        @Test func theOperatorRoleCannotReadPlayersDirectly() throws {
            defer { stop() }
            #expect(throws: PGError.self) { try operatorDB.query("SELECT count(*) FROM players") }
            #expect(throws: PGError.self) { try operatorDB.query("SELECT count(*) FROM sessions") }
        }

        @Test func ownerRightsFunctionsAreTheOperatorsAlone() throws {
            defer { stop() }
            let admin = try server.database()
            defer { admin.close() }
            let stranger = "qd_nobody_\(UInt32.random(in: 0...UInt32.max))"
            try admin.execute(script: "CREATE ROLE \(stranger) LOGIN; GRANT USAGE ON SCHEMA ops TO \(stranger)")
            let nobody = try PGConnection(server.conninfo + " user=\(stranger)")
            defer { nobody.close() }
            #expect(throws: PGError.self) { try nobody.query("SELECT ops.ban_player('x', 'y')") }
            #expect(throws: PGError.self) { try nobody.query("SELECT ops.reset_rating('x', 'world-capitals', 'y')") }
            // The server's role runs no operator function either.
            let serverDB = try PGConnection(LeastPrivilegeTests.loginRole(in: "quizduel_server", on: server.conninfo))
            defer { serverDB.close() }
            #expect(throws: PGError.self) { try serverDB.query("SELECT ops.create_bank('sneaky', 'Sneaky')") }
            #expect(throws: PGError.self) { try serverDB.query("SELECT ops.end_duel(gen_random_uuid())") }
            // An audit row names who really wrote it.
            try operatorDB.query("INSERT INTO ops.audit (actor, action, subject) VALUES ('someone-else', 'note', 'x')")
            let actor = try operatorDB.query("SELECT actor, session_user AS me FROM ops.audit WHERE action = 'note'")[0]
            #expect(try actor.string("actor") == actor.string("me"))
            // A cut-off in the future would archive live history: refused.
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.archive_events(interval '-1 day')") }
        }

        @Test func endingAStuckDuelIsUnratedAndReachesBothPlayers() async throws {
            defer { stop() }
            let (a, b, duel) = try await startDuel(server.url)
            let live = try operatorDB.query("SELECT duel_id::text AS id, player_a, player_b FROM ops.live_duels")
            #expect(live.contains { (try? $0.string("id")) == duel })
            try operatorDB.query("SELECT ops.end_duel(\(duel)::uuid, 'stuck in tests')")
            guard let completeA = await a.client.nextEvent("complete"), let completeB = await b.client.nextEvent("complete") else {
                Issue.record("no complete event")
                return
            }
            #expect(completeA["seq"] == completeB["seq"])
            let result = completeA["record"]?["result"]
            #expect(result?["reason"] == "ended")
            #expect(result?["winner"] == .null)
            for player in [a.id, b.id] {
                #expect(result?["ratings"]?[player]?["before"] == result?["ratings"]?[player]?["after"])
            }
            let db = try server.database()
            defer { db.close() }
            // Unrated: no rating rows, no games counted; the request is marked done; audited.
            #expect(try db.query("SELECT count(*) AS n FROM rating_history WHERE duel_id = \(duel)::uuid")[0].int("n") == 0)
            #expect(try db.query("SELECT coalesce(sum(games), 0) AS n FROM ratings WHERE player_id IN (\(a.id)::uuid, \(b.id)::uuid)")[0].int("n") == 0)
            try await waitUntil { try db.query("SELECT count(*) AS n FROM duel_commands WHERE done_at IS NULL")[0].int("n") == 0 }
            #expect(try operatorDB.query("SELECT count(*) AS n FROM ops.audit WHERE action = 'end_duel'")[0].int("n") == 1)
            // Both may play again; ending it twice is refused and changes nothing.
            #expect(try await a.client.request("queue", ["bank": "world-capitals"])["ok"] == true)
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.end_duel(\(duel)::uuid)") }
        }

        @Test func anEndRequestMadeWhileNoServerListenedIsAppliedLater() async throws {
            defer { stop() }
            let (a, _, duel) = try await startDuel(server.url)
            // As if the NOTIFY was missed: the request sits in the table; the health job finds it.
            let db = try server.database()
            defer { db.close() }
            try db.query("INSERT INTO duel_commands (duel_id, command, requested_at) VALUES (\(duel)::uuid, 'end', now() - interval '5 seconds')")
            let complete = await a.client.nextEvent("complete", timeout: .seconds(10))
            #expect(complete?["record"]?["result"]?["reason"] == "ended")
        }

        @Test func aBannedPlayerIsSignedOutEverywhereAndRefused() async throws {
            defer { stop() }
            let second = try server.another()
            defer { second.stop() }
            let player = try await TestPlayer.signUp(server.url)
            let (elsewhere, signedIn) = try await player.reconnect(second.url)
            #expect(signedIn["ok"] == true)
            _ = try await player.client.request("queue", ["bank": "world-capitals"])
            try operatorDB.query("SELECT ops.ban_player(\(player.username), 'cheating')")
            // Its sockets close on every instance (PROTOCOL.md, account_disabled).
            #expect(await player.client.waitClosed(timeout: .seconds(5)) == 1008)
            #expect(await elsewhere.client.waitClosed(timeout: .seconds(5)) == 1008)
            let again = try DuelClient(url: server.url)
            try await again.connect()
            let login = try await again.request("login", ["username": .string(player.username), "password": "correct horse battery"])
            #expect(login["code"] == "account_disabled", "\(login.serialized)")
            let auth = try await again.request("auth", ["token": .string(player.token)])
            #expect(auth["code"] == "unauthorized")
            // A wrong password still says bad_credentials: the ban is told only to the owner.
            let wrong = try await again.request("login", ["username": .string(player.username), "password": "not the password"])
            #expect(wrong["code"] == "bad_credentials")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM match_queue WHERE player_id = \(player.id)::uuid")[0].int("n") == 0)
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.ban_player(\(player.username), 'again')") }
            try operatorDB.query("SELECT ops.unban_player(\(player.id))")
            let back = try await again.request("login", ["username": .string(player.username), "password": "correct horse battery"])
            #expect(back["ok"] == true, "\(back.serialized)")
        }

        @Test func resettingARatingIsAuditedAndRefusedDuringALiveDuel() async throws {
            defer { stop() }
            let (a, b, duel) = try await startDuel(server.url)
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.reset_rating(\(a.username), 'world-capitals', 'test')") }
            _ = try await b.client.request("forfeit", ["duel_id": .string(duel)])
            _ = await a.client.nextEvent("complete")
            let db = try server.database()
            defer { db.close() }
            let rating = { try db.query("SELECT rating FROM ratings WHERE player_id = \(a.id)::uuid")[0].double("rating") }
            #expect(try rating() > 1500)
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.reset_rating(\(a.username), 'world-capitals', '')") }
            try operatorDB.query("SELECT ops.reset_rating(\(a.username), 'world-capitals', 'smurf account')")
            #expect(try rating() == 1500)
            let audit = try operatorDB.query("SELECT detail->>'reason' AS reason, (detail->>'rating')::float8 AS old FROM ops.audit WHERE action = 'reset_rating'")
            #expect(audit.count == 1)
            #expect(try audit[0].string("reason") == "smurf account")
            #expect(try audit[0].double("old") > 1500)
            #expect(try db.query("SELECT games FROM ratings WHERE player_id = \(a.id)::uuid")[0].int("games") == 1)
        }

        @Test func aRetiredBankLeavesPlayAndItsWaitersAreTold() async throws {
            defer { stop() }
            let waiter = try await TestPlayer.signUp(server.url)
            _ = try await waiter.client.request("queue", ["bank": "world-capitals"])
            try operatorDB.query("SELECT ops.retire_bank('world-capitals')")
            let told = await nextMessage(waiter.client) { $0["op"] == "error" && $0["code"] == "bank_empty" }
            #expect(told != nil)
            let banks = try await waiter.client.request("banks")
            guard case .array(let list)? = banks["data"]?["banks"] else { throw DuelClientError.timeout("banks") }
            #expect(!list.contains { $0["slug"] == "world-capitals" })
            // The list may be served from a 2 s copy; the queue check reads the database.
            #expect(try await waiter.client.request("queue", ["bank": "world-capitals"])["code"] == "unknown_bank")
            // Its leaderboard still answers, and a player's ratings still list it.
            #expect(try await waiter.client.request("leaderboard", ["bank": "world-capitals"])["ok"] == true)
            #expect(try await waiter.client.request("profile")["data"]?["player"]?["ratings"]?["world-capitals"] != nil)
            try operatorDB.query("SELECT ops.restore_bank('world-capitals')")
            #expect(try await waiter.client.request("queue", ["bank": "world-capitals"])["ok"] == true)
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.restore_bank('world-capitals')") }
        }

        @Test func editingAQuestionKeepsWhatPastDuelsAsked() async throws {
            defer { stop() }
            let (a, b, duel) = try await startDuel(server.url)
            // a misses question 0 (answers wrong), then b forfeits: question 0 is in a's notebook.
            guard let question = await a.client.nextEvent("question") else { throw DuelClientError.timeout("question") }
            let correct = try correctChoice(server, duel: duel, index: 0)
            let count = { if case .array(let options)? = question["record"]?["question"]?["choices"] { return options.count }; return 2 }()
            _ = try await a.client.request("answer", [
                "duel_id": .string(duel), "question_index": 0, "choice": .number((correct + 1) % count),
            ])
            _ = await a.client.nextEvent("reveal")
            _ = try await b.client.request("forfeit", ["duel_id": .string(duel)])
            _ = await a.client.nextEvent("complete")
            guard let asked = question["record"]?["question"]?["question_id"]?.integer, let prompt = question["record"]?["question"]?["prompt"]?.string
            else { throw DuelClientError.timeout("question id") }
            let newID = try operatorDB.query("""
                SELECT ops.edit_question(\(asked), 'An edited prompt?', ARRAY['yes', 'no'], 'B') AS id
                """)[0].int64("id")
            let mistakes = try await a.client.request("mistakes", ["limit": 10])
            guard case .array(let missed)? = mistakes["data"]?["questions"] else { throw DuelClientError.timeout("mistakes") }
            let entry = missed.first { $0["question_id"]?.integer == asked }
            #expect(entry?["prompt"]?.string == prompt)
            let db = try server.database()
            defer { db.close() }
            let rows = try db.query("SELECT id, active, replaced_by FROM questions WHERE id IN (\(asked), \(newID)) ORDER BY id")
            #expect(try rows[0].bool("active") == false && rows[0].optionalInt64("replaced_by") == newID)
            #expect(try rows[1].bool("active") == true)
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.edit_question(\(asked), 'x?', ARRAY['a','b'], 0)") }
            #expect(throws: PGError.self) { try operatorDB.query("SELECT ops.edit_question(\(newID), 'x?', ARRAY['a','a'], 0)") }
        }

        @Test func theQualityViewFlagsAKeyThatStrongPlayersMiss() throws {
            defer { stop() }
            let db = try server.database()
            defer { db.close() }
            // 30 rated answers to one question: the strong half wrong, the weak half right.
            try db.execute(script: """
                DO $$
                DECLARE q bigint; d uuid; pa uuid; pb uuid; i int;
                BEGIN
                    SELECT id INTO q FROM questions WHERE bank_id = ops.bank_id('world-capitals') ORDER BY id LIMIT 1;
                    FOR i IN 1..15 LOOP
                        INSERT INTO players (username, password_hash) VALUES ('strong' || i, '$argon2id$x') RETURNING id INTO pa;
                        INSERT INTO players (username, password_hash) VALUES ('weak' || i, '$argon2id$x') RETURNING id INTO pb;
                        INSERT INTO duels (bank_id, player_a, player_b, state, last_seq, finished_at, finish_reason)
                        VALUES (ops.bank_id('world-capitals'), pa, pb, 'finished', 1, now(), 'completed') RETURNING id INTO d;
                        -- The engine's start state holds each player's rating then.
                        INSERT INTO duel_starts (duel_id, base_state)
                        VALUES (d, json_build_object('players', json_build_array(
                                    json_build_object('id', pa, 'rating', json_build_object('rating', 1800 + i)),
                                    json_build_object('id', pb, 'rating', json_build_object('rating', 1200 - i)))));
                        INSERT INTO duel_questions VALUES (d, 0, q);
                        -- A finished duel keeps its final record (ops.duel_anomalies, final_record).
                        INSERT INTO duel_events (duel_id, seq, kind, at_ms, record) VALUES (d, 1, 'complete', 0, '{}');
                        INSERT INTO duel_answers VALUES (d, 0, pa, 0, false, 0, 1000, now()), (d, 0, pb, 1, true, 150, 2000, now());
                        INSERT INTO rating_history (duel_id, player_id, bank_id, outcome, score, rating_before, rating_after,
                                                    deviation_before, deviation_after, volatility_before, volatility_after)
                        VALUES (d, pa, ops.bank_id('world-capitals'), 'loss', 0, 1800 + i, 1790, 50, 50, 0.06, 0.06),
                               (d, pb, ops.bank_id('world-capitals'), 'win', 150, 1200 - i, 1210, 50, 50, 0.06, 0.06);
                    END LOOP;
                END $$;
                """)
            let rows = try operatorDB.query("""
                SELECT answers, rating_correlation::float8 AS r, suspect_key FROM ops.question_quality
                 WHERE bank = 'world-capitals' ORDER BY question_id LIMIT 2
                """)
            #expect(try rows[0].int("answers") == 30)
            #expect(try rows[0].double("r") < -0.9)
            #expect(try rows[0].bool("suspect_key"))
            #expect(try rows[1].bool("suspect_key") == false)
        }

        /// A duel played to its end (a forfeit), for the anomaly tests.
        func forfeitedDuel() async throws -> String {
            let (a, b, duel) = try await startDuel(server.url)
            _ = try await b.client.request("forfeit", ["duel_id": .string(duel)])
            _ = await a.client.nextEvent("complete")
            return duel
        }

        /// What ops.duel_anomalies names, as `table rule`, read as an operator.
        func anomalies() throws -> [String] {
            try operatorDB.query("SELECT table_name || ' ' || rule AS r FROM ops.duel_anomalies ORDER BY 1").map { try $0.string("r") }
        }

        /// Migration 024 took the CHECKs and foreign keys off the tables a lane round writes; the
        /// view names each row that breaks what they said (and a played game leaves none: every
        /// test server checks at its end).
        @Test func duelAnomaliesNameTheRowsThatBreakTheRules() async throws {
            defer { stop() }
            let duel = try await forfeitedDuel()
            #expect(try anomalies() == [])
            let db = try server.database()
            defer { db.close() }
            // What the migration left: no CHECK on the four tables and no key from the three logs
            // (its drops say IF EXISTS, so a misspelt name would pass unseen there).
            let left = try db.query("""
                SELECT conrelid::regclass::text || ' ' || conname AS c FROM pg_constraint
                 WHERE conrelid IN ('duels'::regclass, 'duel_inputs'::regclass, 'duel_answers'::regclass, 'duel_events'::regclass)
                   AND (contype = 'c' OR (contype = 'f' AND conrelid <> 'duels'::regclass))
                """).map { try $0.string("c") }
            #expect(left == [])
            try db.query("""
                WITH e AS (INSERT INTO duel_events (duel_id, seq, kind, at_ms, record)
                           VALUES (\(duel)::uuid, 0, 'bogus', 0, '{}') RETURNING 1),
                     i AS (INSERT INTO duel_inputs (duel_id, n, kind, player_id, at_ms)
                           SELECT \(duel)::uuid, 1000, 'answer', player_a, 0 FROM duels WHERE id = \(duel)::uuid RETURNING 1)
                INSERT INTO duel_answers (duel_id, question_index, player_id, choice, correct, points, elapsed_ms, answered_at)
                SELECT id, 99, player_a, 0, false, 5, 10, now() FROM duels WHERE id = \(duel)::uuid
                """)
            #expect(try anomalies() == ["duel_answers points", "duel_answers question_drawn", "duel_events kind",
                                        "duel_events seq", "duel_inputs answer_has_one_submission"])
            try db.query("""
                WITH e AS (DELETE FROM duel_events WHERE duel_id = \(duel)::uuid AND seq = 0 RETURNING 1),
                     i AS (DELETE FROM duel_inputs WHERE duel_id = \(duel)::uuid AND n = 1000 RETURNING 1)
                DELETE FROM duel_answers WHERE duel_id = \(duel)::uuid AND question_index = 99
                """)
            #expect(try anomalies() == [])
            // A finished duel whose final record is gone: `history` would drop the game, and no
            // other stored event of its rounds is left to show it (issue 25).
            try db.query("""
                WITH gone AS (DELETE FROM duel_events e USING duels d
                               WHERE d.id = \(duel)::uuid AND e.duel_id = d.id AND e.seq = d.last_seq RETURNING e.*)
                INSERT INTO duel_events_archive (duel_id, seq, kind, at_ms, record)
                SELECT duel_id, seq, kind, at_ms, record FROM gone
                """)
            let missing = try anomalies()
            #expect(missing == ["duels final_record"], "\(missing)")
            try db.query("""
                INSERT INTO duel_events (duel_id, seq, kind, at_ms, record)
                SELECT duel_id, seq, kind, at_ms, record FROM duel_events_archive WHERE duel_id = \(duel)::uuid
                """)
            #expect(try anomalies() == [])
        }

        /// Migration 028 took the foreign keys, the second unique key and the CHECK off a new
        /// duel's drawn questions; the view names the rows that break what they said. Before the
        /// migration the first expectation fails (four constraints left), and the bad rows below
        /// could not be written.
        @Test func drawnQuestionsKeepTheirKeysAndTheViewNamesTheirBrokenRules() async throws {
            defer { stop() }
            let duel = try await forfeitedDuel()
            let db = try server.database()
            defer { db.close() }
            let left = try db.query("""
                SELECT contype::text || ' ' || pg_get_constraintdef(oid) AS c FROM pg_constraint
                 WHERE conrelid = 'duel_questions'::regclass AND contype <> 'n' ORDER BY 1
                """).map { try $0.string("c") }
            #expect(left == ["p PRIMARY KEY (duel_id, question_index)"])
            #expect(try anomalies() == [])
            // A question drawn twice (index 50 repeats index 0's), an unknown duel with an unknown
            // question at a negative index.
            try db.query("""
                WITH twice AS (INSERT INTO duel_questions (duel_id, question_index, question_id)
                               SELECT duel_id, 50, question_id FROM duel_questions
                                WHERE duel_id = \(duel)::uuid AND question_index = 0 RETURNING 1)
                INSERT INTO duel_questions (duel_id, question_index, question_id)
                VALUES ('00000000-0000-4000-8000-000000000028', -1, -28)
                """)
            #expect(try anomalies() == ["duel_questions duel_known", "duel_questions question_index",
                                        "duel_questions question_known", "duel_questions question_once",
                                        "duel_questions question_once"])
            try db.query("""
                DELETE FROM duel_questions WHERE (duel_id = \(duel)::uuid AND question_index = 50)
                    OR duel_id = '00000000-0000-4000-8000-000000000028'
                """)
            #expect(try anomalies() == [])
        }

        @Test func upkeepPurgesSessionsAndArchivesOldEvents() async throws {
            defer { stop() }
            let (a, b, duel) = try await startDuel(server.url)
            _ = try await b.client.request("forfeit", ["duel_id": .string(duel)])
            _ = await a.client.nextEvent("complete")
            let db = try server.database()
            defer { db.close() }
            let events = try db.query("SELECT count(*) AS n FROM duel_events WHERE duel_id = \(duel)::uuid")[0].int("n")
            #expect(events >= 2)
            func log(_ table: String) throws -> String? {
                try db.query("""
                    SELECT string_agg(concat_ws(',', n, kind, player_id, question_index, choice, at_ms, choices,
                                                answer_text, answer_number, lag_ms), ';' ORDER BY n) AS log
                      FROM \(unsafeRaw: table) WHERE duel_id = \(duel)::uuid
                    """)[0].optionalString("log")
            }
            let inputs = try #require(try log("duel_inputs"))
            // Young duels stay.
            #expect(try operatorDB.query("SELECT ops.archive_events() AS n")[0].int("n") == 0)
            try db.query("UPDATE duels SET finished_at = now() - interval '1 year', created_at = now() - interval '1 year' WHERE id = \(duel)::uuid")
            #expect(try operatorDB.query("SELECT ops.archive_events() AS n")[0].int("n") == events - 1)
            // The input log, from which the events between the start's rows and the end are
            // derived, moves to its archive whole (migration 029); it is not deleted.
            #expect(try log("duel_inputs") == nil)
            #expect(try log("duel_inputs_archive") == inputs)
            // history still shows the final record.
            let history = try await a.client.request("history", ["limit": 5])
            guard case .array(let duels)? = history["data"]?["duels"] else { throw DuelClientError.timeout("history") }
            #expect(duels.first?["id"] == .string(duel))
            try db.query("""
                INSERT INTO sessions (token_hash, player_id, created_at, expires_at)
                VALUES (decode(repeat('ab', 32), 'hex'), \(a.id)::uuid, now() - interval '2 days', now() - interval '1 day')
                """)
            // The server may purge it first (it does so every second): either way it is gone.
            _ = try operatorDB.query("SELECT ops.purge_expired_sessions()")
            #expect(try db.query("SELECT count(*) AS n FROM sessions WHERE expires_at <= now()")[0].int("n") == 0)
        }
    }
}

/// Polls `condition` every 50 ms for up to 5 s.
func waitUntil(_ condition: () throws -> Bool) async throws {
    for _ in 0..<100 {
        if try condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    Issue.record("condition not met within 5 s")
}
