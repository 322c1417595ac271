import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// Issue 23, over real sockets: progress cannot be farmed by trading forfeits, private
    /// quizzes cannot be probed, caps on reports and on challenges received, bans empty rooms,
    /// and operators' banks and metrics.
    @Suite(.serialized) struct HoleTests {
        /// The player's XP and games as stored (0, 0 without a row).
        func progress(_ db: PGConnection, _ player: TestPlayer) throws -> (xp: Int, games: Int) {
            guard let row = try db.query("SELECT xp, games FROM player_progress WHERE player_id = \(player.id)::uuid").first
            else { return (0, 0) }
            return (try row.int("xp"), try row.int("games"))
        }

        /// Item 1, reproduced: the host starts a one-question game, the friend leaves and joins
        /// again, over and over. Each game ended at once by forfeit with the host first: +40 XP,
        /// a win and `first_win` each time. The host's XP must not grow.
        @Test func tradingForfeitsInARoomPaysNothing() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 2, settings: ["questions": 1, "max_players": 2])
            let (host, friend) = (room.host, room.members[0])
            let db = try server.database()
            defer { db.close() }
            for round in 0..<4 {
                let started = try await host.client.request("room_start")
                guard let duel = started["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(started.serialized) }
                #expect(try await friend.client.request("room_leave")["ok"] == true)
                let complete = await nextEvent(host, "complete", timeout: .seconds(10)) { $0["duel_id"] == .string(duel) }
                #expect(complete != nil, "round \(round): no complete")
                let joined = try await friend.client.request("room_join", ["code": .string(room.code)])
                #expect(joined["ok"] == true, "\(joined.serialized)")
            }
            #expect(try progress(db, host) == (0, 0))
            #expect(try db.query("""
                SELECT count(*) AS n FROM player_achievements WHERE player_id = \(host.id)::uuid
                """)[0].int("n") == 0)
            // A real game still pays: the friend misses, the host answers right.
            let started = try await host.client.request("room_start")
            guard let duel = started["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(started.serialized) }
            _ = try await playRoomGame(server, [host, friend], duel: duel)
            #expect(try progress(db, host) == (50, 1))
            #expect(try progress(db, friend) == (0, 1))
        }

        /// Item 5, reproduced: as another player, `stats`, `leaderboard` and `rating_history`
        /// on a private quiz answered with empty figures while a missing slug was
        /// `unknown_bank`. Every op taking a bank or quiz now answers both alike.
        @Test func aPrivateQuizAnswersExactlyAsAMissingOne() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let owner = try await TestPlayer.signUp(server.url)
            let other = try await TestPlayer.signUp(server.url)
            let created = try await owner.client.request("quiz_create", ["title": "Secret"])
            let slug = created["data"]?["quiz"]?["quiz"]?.string ?? ""
            let added = try await owner.client.request("question_add", [
                "quiz": .string(slug), "type": "single", "prompt": "Q?", "choices": ["yes", "no"], "correct_choice": 0,
            ])
            let question = added["data"]?["question"]?["question_id"] ?? .null
            let missing = "quiz-999999"
            func answer(_ op: String, _ fields: JSONObject) async throws -> String {
                let reply = try await other.client.request(op, fields)
                return reply["code"]?.string ?? "ok"
            }
            for (op, field) in [("stats", "bank"), ("leaderboard", "bank"), ("rating_history", "bank"), ("queue", "bank"),
                                ("practice", "bank"), ("room_create", "bank"), ("quiz", "quiz"), ("quiz_questions", "quiz"),
                                ("quiz_delete", "quiz"), ("quiz_publish", "quiz"), ("quiz_save", "quiz"),
                                ("recorded", "bank")] {
                let hidden = try await answer(op, [field: .string(slug)])
                let absent = try await answer(op, [field: .string(missing)])
                #expect(hidden == absent && hidden == "unknown_bank", "\(op): \(hidden) vs \(absent)")
            }
            #expect(try await answer("goal_set", ["kind": "games", "target": 1, "bank": .string(slug)]) == "unknown_bank")
            #expect(try await answer("bank_pref_set", ["bank": .string(slug), "note": "x"]) == "unknown_bank")
            #expect(try await answer("bank_pref_set", ["bank": .string(missing), "note": "x"]) == "unknown_bank")
            #expect(try await answer("challenge", ["username": .string(owner.username), "bank": .string(slug)]) == "unknown_bank")
            #expect(try await answer("quiz_update", ["quiz": .string(slug), "title": "Mine"]) == "unknown_bank")
            #expect(try await answer("report", ["quiz": .string(slug), "reason": "x"]) == "unknown_bank")
            #expect(try await answer("report", ["question_id": question, "reason": "x"]) == "unknown_question")
            #expect(try await answer("question_delete", ["question_id": question]) == "unknown_question")
            // Published, the quiz is visible: someone else's, so not_owner for its owner's ops.
            #expect(try await owner.client.request("quiz_publish", ["quiz": .string(slug)])["ok"] == true)
            #expect(try await answer("quiz_update", ["quiz": .string(slug), "title": "Mine"]) == "not_owner")
            #expect(try await answer("stats", ["bank": .string(slug)]) == "ok")
            #expect(try await answer("leaderboard", ["bank": .string(slug)]) == "ok")
        }

        /// Item 6, reproduced over the wire: a NUL cut the slug where libpq reads parameters as
        /// C strings, so this answered world-capitals' leaderboard and started a practice game.
        @Test func aControlCharacterInAnIdentifierIsRefused() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            for op in ["leaderboard", "practice", "queue", "room_create", "stats", "rating_history"] {
                let reply = try await player.client.request(op, ["bank": "world-capitals\u{0}junk"])
                #expect(reply["code"] == "bad_request" && reply["message"]?.string?.hasPrefix("bank:") == true,
                        "\(op): \(reply.serialized)")
            }
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM duels WHERE player_a = \(player.id)::uuid")[0].int("n") == 0)
        }

        /// Items 7 and 8: one socket stored 60 reports in 3.4 s, and 8 fresh accounts sent one
        /// player 24 challenges (each a stored notification) in 0.2 s.
        @Test func reportsAndChallengesReceivedAreCapped() async throws {
            let server = try TestServer.start {
                $0.social.reportsPerHour = 3
                $0.social.challengesReceivedPerMinute = 2
            }
            defer { server.stop() }
            let reporter = try await TestPlayer.signUp(server.url)
            let db = try server.database()
            defer { db.close() }
            let question = try db.query("""
                SELECT q.id FROM questions q JOIN banks b ON b.id = q.bank_id WHERE b.slug = 'world-capitals' LIMIT 1
                """)[0].int64("id")
            var codes: [String] = []
            for n in 0..<5 {
                let reply = try await reporter.client.request("report", ["question_id": .int(question), "reason": .string("typo \(n)")])
                codes.append(reply["code"]?.string ?? "ok")
            }
            #expect(codes == ["ok", "ok", "ok", "rate_limited", "rate_limited"])
            #expect(try db.query("SELECT count(*) AS n FROM question_reports WHERE player_id = \(reporter.id)::uuid")[0]
                .int("n") == 3)

            let target = try await TestPlayer.signUp(server.url)
            codes = []
            for _ in 0..<4 {
                let fresh = try await TestPlayer.signUp(server.url)
                let reply = try await fresh.client.request("challenge", ["username": .string(target.username), "bank": "world-capitals"])
                codes.append(reply["code"]?.string ?? "ok")
            }
            #expect(codes == ["ok", "ok", "rate_limited", "rate_limited"])
            #expect(try db.query("SELECT count(*) AS n FROM challenges WHERE to_player = \(target.id)::uuid")[0].int("n") == 2)
            #expect(try db.query("""
                SELECT count(*) AS n FROM notifications WHERE player_id = \(target.id)::uuid AND kind = 'challenge_received'
                """)[0].int("n") == 2)
        }

        /// Item 9: a banned player's room kept them as a member for the abandonment delay.
        @Test func aBanRemovesThePlayerFromTheirRoomAtOnce() async throws {
            let server = try TestServer.start { $0.duel.abandonAfterMs = 60_000 }
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 3)
            let banned = room.members[0]
            let db = try server.database()
            defer { db.close() }
            try db.query("SELECT ops.ban_player(\(banned.username), 'cheating')")
            let update = await nextEvent(room.host, "room", timeout: .seconds(5)) { event in
                guard case .array(let members)? = event["record"]?["members"] else { return false }
                return !members.contains { $0["player"] == .string(banned.id) || $0["id"] == .string(banned.id) }
                    && members.count == 2
            }
            #expect(update != nil, "the host never saw the banned member leave")
            #expect(try db.query("SELECT count(*) AS n FROM room_members WHERE player_id = \(banned.id)::uuid")[0].int("n") == 0)
        }

        /// Item 11: a bank with fewer active questions than a duel draws is not offered, and
        /// players' quizzes add no queue series of their own to /metrics.
        @Test func operatorsBanksAndMetricsShowWhatPlayersCanUse() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let db = try server.database()
            defer { db.close() }
            try db.query("SELECT ops.create_bank('thin-bank', 'Thin')")
            _ = try db.query("SELECT ops.add_question('thin-bank', 'Only one?', ARRAY['yes','no'], 'A')")
            let player = try await TestPlayer.signUp(server.url)
            let banks = try await player.client.request("banks")
            guard case .array(let listed)? = banks["data"]?["banks"] else { throw DuelClientError.timeout(banks.serialized) }
            #expect(listed.contains { $0["slug"] == "world-capitals" })
            #expect(!listed.contains { $0["slug"] == "thin-bank" }, "\(banks.serialized)")
            // A private quiz of a player: no series of its own.
            let created = try await player.client.request("quiz_create", ["title": "Mine"])
            let slug = created["data"]?["quiz"]?["quiz"]?.string ?? "?"
            try await Task.sleep(for: .milliseconds(2_500))
            let metrics = httpGet(port: server.port, "/metrics").body
            #expect(metrics.contains("quizduel_queue_length{scope=\"cluster\",bank=\"world-capitals\"}"))
            #expect(metrics.contains("quizduel_queue_length{scope=\"cluster\",bank=\"_player_quizzes\"}"), "\(metrics)")
            #expect(!metrics.contains("bank=\"\(slug)\""))
        }
    }
}
