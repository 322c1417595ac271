import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Progress granted with a game's completion (issue 14): once, whoever applies it; streak days
/// in each player's time zone, with time as an input; weekly goals; level-ups.
@Suite struct ProgressStoreTests {
    /// One question, no countdown, no reveal pause: a game ends 10 s after it starts.
    static let rules = DuelConfiguration(countdownMs: 0, answerWindowMs: 10_000, revealMs: 0, questionCount: 1)

    func game(_ fixture: StoreFixture, _ players: [PlayerID], atMs: Int64, mode: DuelMode = .ranked,
              bank slug: String = "general-science") throws -> Duel {
        let connection = try fixture.connect()
        defer { connection.close() }
        let bank = try #require(try QuizRepository(connection).bank(slug: slug)).id
        return try connection.transaction {
            try DuelRepository($0).createGames(bankID: bank, games: [players], mode: mode, configuration: Self.rules, nowMs: atMs)[0].duel
        }
    }

    /// Answers `duel`'s one question wrong as seat `seat` at `atMs` (which locks out only them).
    func miss(_ connection: PGConnection, _ duel: Duel, seat: Int, atMs: Int64) throws {
        let question = duel.questions[0]
        _ = try DuelRepository(connection).updateDuel(id: duel.id, .answer(
            player: duel.players[seat].id, questionIndex: 0,
            choice: (question.correctChoice! + 1) % question.choices.count, atMs: atMs))
    }

    /// Plays `duel`'s one question: seat 1 (if any) answers wrong just before, then seat 0
    /// answers right at `atMs`, which ends the game. Both played, so both are paid.
    func win(_ connection: PGConnection, _ duel: Duel, atMs: Int64) throws {
        if duel.players.count > 1 { try miss(connection, duel, seat: 1, atMs: atMs - 1) }
        let update = try DuelRepository(connection).updateDuel(id: duel.id, .answer(
            player: duel.players[0].id, questionIndex: 0, choice: duel.questions[0].correctChoice!, atMs: atMs))
        #expect(update?.finished == true)
    }

    func progress(_ connection: PGConnection, _ player: PlayerID) throws -> (xp: Int, games: Int, streak: Int, best: Int) {
        let row = try connection.query("""
            SELECT xp, games, current_streak, best_streak FROM player_progress WHERE player_id = \(player)::uuid
            """)[0]
        return (try row.int("xp"), try row.int("games"), try row.int("current_streak"), try row.int("best_streak"))
    }

    @Test func twoInstancesCompletingOneGameGrantItOnce() async throws {
        let fixture = try StoreFixture(workers: 2)
        let players = try await fixture.players(2, prefix: "x\(UUID().uuidString.prefix(6))")
        let duel = try game(fixture, players, atMs: 1_000)
        // Seat 0 answers wrong; seat 1 never answers, so only seat 0 played (issue 23: a game
        // with no answer of one's own pays nothing).
        let setup = try fixture.connect()
        try miss(setup, duel, seat: 0, atMs: 2_000)
        setup.close()
        // Two connections (two instances' lanes) apply the deadline that ends the game at once.
        let id = duel.id
        async let first = fixture.pool.run { db in try DuelRepository(db).updateDuel(id: id, .advance(atMs: 20_000)) }
        async let second = fixture.pool.run { db in try DuelRepository(db).updateDuel(id: id, .advance(atMs: 20_000)) }
        let results = try await [first, second]
        let one = try fixture.connect()
        defer { one.close() }
        #expect(results.filter { $0?.events.contains { $0.kind == .complete } == true }.count == 1)
        #expect(try one.query("SELECT count(*) AS n FROM game_progress WHERE duel_id = \(duel.id)::uuid")[0].int("n") == 1)
        for (player, granted) in zip(players, [1, 0]) {
            #expect(try one.query("SELECT count(*) AS n FROM game_progress WHERE player_id = \(player)::uuid")[0]
                .int("n") == granted)
            #expect(try one.query("""
                SELECT count(*) AS n FROM notifications WHERE player_id = \(player)::uuid AND data->>'code' = 'first_game'
                """)[0].int("n") == granted)
        }
        #expect(try progress(one, players[0]).games == 1)
        // A first game writes the row with its streak (record_progress's upsert, insert path).
        let firstGame = try progress(one, players[0])
        #expect(firstGame.streak == 1 && firstGame.best == 1)
        #expect(try one.query("""
            SELECT p.streak_day = player_day(g.finished_at, 'UTC') AND p.streak_until > g.finished_at AS ok
              FROM player_progress p JOIN game_progress g ON g.player_id = p.player_id
             WHERE p.player_id = \(players[0])::uuid
            """)[0].bool("ok"))
        // A draw at 0:0: seat 0 shares first place with a rival who was there, 40 XP.
        #expect(try progress(one, players[0]).xp == 40)
        // The same facts again (a retry, a replay) fail the transaction: nothing is granted twice.
        #expect(throws: PGError.self) {
            try one.query("""
                SELECT record_progress(ARRAY[\(duel.id)]::uuid[], ARRAY[\(players[0])]::uuid[], ARRAY[1], ARRAY['ranked'],
                                       ARRAY[20000]::bigint[], ARRAY[0], ARRAY[1], ARRAY[true], ARRAY[false], ARRAY[true],
                                       ARRAY[2], ARRAY[NULL]::bigint[], ARRAY[1], ARRAY[1])
                """)
        }
        #expect(try progress(one, players[0]).xp == 40)
    }

    @Test func theStreakCountsDaysInEachPlayersTimeZoneAcrossMidnight() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "z\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        try ProgressRepository(connection).setTimeZone(player: players[0], "Asia/Tokyo")
        try ProgressRepository(connection).setTimeZone(player: players[1], "America/New_York")
        #expect(throws: StoreError(.badRequest, "time_zone: unknown time zone Mars/Olympus")) {
            try ProgressRepository(connection).setTimeZone(player: players[0], "Mars/Olympus")
        }
        // 2026-03-01 14:59:30 UTC is 23:59:30 in Tokyo and 09:59:30 in New York.
        let sunday = Int64(1_772_377_170_000)
        var duel = try game(fixture, players, atMs: sunday - 1_000)
        try win(connection, duel, atMs: sunday)
        #expect(try progress(connection, players[0]).streak == 1 && progress(connection, players[1]).streak == 1)
        // Two minutes later: past midnight in Tokyo (a new day), the same morning in New York.
        duel = try game(fixture, players, atMs: sunday + 119_000)
        try win(connection, duel, atMs: sunday + 120_000)
        #expect(try progress(connection, players[0]).streak == 2)
        #expect(try progress(connection, players[1]).streak == 1)
        // A day later (Tuesday 00:30 in Tokyo, Monday 10:30 in New York): both go on.
        duel = try game(fixture, players, atMs: sunday + 86_400_000 + 1_800_000)
        try win(connection, duel, atMs: sunday + 86_400_000 + 1_801_000)
        #expect(try progress(connection, players[0]).streak == 3)
        #expect(try progress(connection, players[1]).streak == 2)
        // Two days without a game: the next one starts again at 1; the best stays.
        duel = try game(fixture, players, atMs: sunday + 4 * 86_400_000)
        try win(connection, duel, atMs: sunday + 4 * 86_400_000 + 1_000)
        let tokyo = try progress(connection, players[0])
        #expect(tokyo.streak == 1 && tokyo.best == 3)
        // What the player object shows depends on today: a day without a game ends the streak.
        let shown = { (at: Int64) throws -> JSONValue in
            try JSONParser.parse(try connection.query("""
                SELECT progress_json(\(players[0])::uuid, to_timestamp(\(at) / 1000.0))::text AS p
                """)[0].string("p"))
        }
        #expect(try shown(sunday + 4 * 86_400_000 + 3_600_000)["streak"]?["current"] == 1)
        #expect(try shown(sunday + 7 * 86_400_000)["streak"]?["current"] == 0)
        #expect(try shown(sunday + 7 * 86_400_000)["streak"]?["best"] == 3)
    }

    @Test func aWeeklyGoalReachedGivesXPANotificationAndLevelsUp() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "g\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        let goals = try ProgressRepository(connection).setGoal(player: players[0], GoalDraft(kind: .wins, bank: nil, target: 1))
        #expect(goals.count == 1 && goals[0]["progress"] == 0 && goals[0]["reached"] == false)
        #expect(throws: StoreError(.unknownBank)) {
            try ProgressRepository(connection).setGoal(player: players[0], GoalDraft(kind: .games, bank: "no-such-bank", target: 3))
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let duel = try game(fixture, players, atMs: now)
        try win(connection, duel, atMs: now + 500)
        let after = try ProgressRepository(connection).goals(player: players[0])
        #expect(after[0]["progress"] == 1 && after[0]["reached"] == true)
        // 10 (right) + 40 (won) + 100 (the goal): level 2 at 100 XP.
        #expect(try progress(connection, players[0]).xp == 150)
        // Setting the goal again (a higher target) does not reopen it: its XP is given once.
        let again = try ProgressRepository(connection).setGoal(player: players[0], GoalDraft(kind: .wins, bank: nil, target: 2))
        #expect(again[0]["target"] == 2 && again[0]["reached"] == true)
        let next = try game(fixture, players, atMs: now + 20_000)
        try win(connection, next, atMs: now + 20_500)
        #expect(try progress(connection, players[0]).xp == 150 + 50)
        // A new goal this week's games already meet is reached at once, without XP.
        let met = try ProgressRepository(connection).setGoal(player: players[0], GoalDraft(kind: .games, bank: nil, target: 1))
        #expect(met.first { $0["kind"] == "games" }?["reached"] == true)
        #expect(try progress(connection, players[0]).xp == 200)
        let kinds = try connection.query("""
            SELECT kind FROM notifications WHERE player_id = \(players[0])::uuid ORDER BY id
            """).map { try $0.string("kind") }
        #expect(kinds.contains("goal_reached") && kinds.contains("level_up") && kinds.contains("achievement"))
        let achievements = try ProgressRepository(connection).achievements(player: players[0])
        #expect(achievements.count >= 12)
        let earned = achievements.filter { $0["earned_at"] != .null }.compactMap { $0["code"]?.string }
        #expect(Set(earned) == ["first_game", "first_win", "speedster", "goal_reached"])
        #expect(try ProgressRepository(connection).notifications(player: players[0], limit: 50, before: nil)["unseen"] == .number(kinds.count))
    }

    @Test func oldNotificationsArePrunedByTheUpkeep() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(1, prefix: "n\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        try ProgressRepository(connection).notify(players[0], kind: "achievement", into: Outbox(), ["code": "first_game", "title": "First steps"])
        try ProgressRepository(connection).notify(players[0], kind: "achievement", into: Outbox(), ["code": "first_win", "title": "First win"])
        try connection.query("""
            UPDATE notifications SET created_at = now() - interval '91 days'
             WHERE player_id = \(players[0])::uuid AND data->>'code' = 'first_game'
            """)
        _ = try DuelRepository(connection).runUpkeep(notificationRetentionDays: 90)
        let left = try ProgressRepository(connection).notifications(player: players[0], limit: 10, before: nil)
        guard case .array(let items)? = left["notifications"] else { Issue.record("no list"); return }
        #expect(items.count == 1 && items[0]["data"]?["code"] == "first_win")
    }

    // Issue 23: progress pays for play.

    @Test func aGameNobodyAnsweredPaysNobody() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "e\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        let duel = try game(fixture, players, atMs: 1_000)
        #expect(try DuelRepository(connection).updateDuel(id: duel.id, .advance(atMs: 20_000))?.finished == true)
        // Before: a 0:0 draw paid both 40 XP, a game, first_game and a streak day.
        #expect(try connection.query("SELECT count(*) AS n FROM game_progress WHERE duel_id = \(duel.id)::uuid")[0]
            .int("n") == 0)
        #expect(try connection.query("""
            SELECT count(*) AS n FROM player_progress WHERE player_id = ANY(\(PGArray(players.map { Optional($0) }))::uuid[])
               AND (xp > 0 OR games > 0 OR current_streak > 0)
            """)[0].int("n") == 0)
        #expect(try connection.query("""
            SELECT count(*) AS n FROM player_achievements WHERE player_id = ANY(\(PGArray(players.map { Optional($0) }))::uuid[])
            """)[0].int("n") == 0)
    }

    @Test func practisingOnesOwnQuizPaysNothing() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "o\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        // The bank becomes seat 0's published quiz (the pay rule looks only at its owner).
        try connection.query("""
            UPDATE banks SET owner_id = \(players[0])::uuid, published_at = now() WHERE slug = 'chemical-elements'
            """)
        let own = try game(fixture, [players[0]], atMs: 1_000, mode: .practice, bank: "chemical-elements")
        try win(connection, own, atMs: 2_000)
        #expect(try connection.query("SELECT count(*) AS n FROM game_progress WHERE player_id = \(players[0])::uuid")[0]
            .int("n") == 0)
        // Another player practising the same quiz is paid (10 right + 20 finished).
        let other = try game(fixture, [players[1]], atMs: 3_000, mode: .practice, bank: "chemical-elements")
        try win(connection, other, atMs: 4_000)
        #expect(try progress(connection, players[1]).xp == 30)
    }

    @Test func hoppingTimeZonesGivesNoSecondStreakDay() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "h\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        try ProgressRepository(connection).setTimeZone(player: players[0], "Etc/GMT+12")
        // The same zone again is no change; another within a day is refused.
        try ProgressRepository(connection).setTimeZone(player: players[0], "Etc/GMT+12")
        #expect(throws: StoreError.self) { try ProgressRepository(connection).setTimeZone(player: players[0], "Pacific/Kiritimati") }
        // 2026-03-02 11:00 UTC: 23:00 on the 1st at UTC-12, 01:00 on the 3rd at UTC+14.
        let at = Int64(1_772_449_200_000)
        var duel = try game(fixture, players, atMs: at - 1_000)
        try win(connection, duel, atMs: at)
        #expect(try progress(connection, players[0]).streak == 1)
        // A day later the zone may change; the move itself, a minute after a game, gives no day.
        try connection.query("""
            UPDATE player_progress SET time_zone_set_at = now() - interval '25 hours' WHERE player_id = \(players[0])::uuid
            """)
        try ProgressRepository(connection).setTimeZone(player: players[0], "Pacific/Kiritimati")
        duel = try game(fixture, players, atMs: at + 59_000)
        try win(connection, duel, atMs: at + 60_000)
        #expect(try progress(connection, players[0]).streak == 1)
        // The next real day goes on with the streak, in the new zone.
        duel = try game(fixture, players, atMs: at + 86_400_000 - 1_000)
        try win(connection, duel, atMs: at + 86_400_000)
        #expect(try progress(connection, players[0]).streak == 2)
    }
}
