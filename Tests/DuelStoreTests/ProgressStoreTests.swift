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

    func game(_ fixture: StoreFixture, _ players: [PlayerID], atMs: Int64) throws -> Duel {
        let connection = try fixture.connect()
        defer { connection.close() }
        let bank = try #require(try connection.bank(slug: "general-science")).id
        return try connection.transaction {
            try $0.createGames(bankID: bank, games: [players], mode: .ranked, configuration: Self.rules, nowMs: atMs)[0].duel
        }
    }

    /// Plays `duel`'s one question: seat 0 answers right at `atMs`, which ends the game.
    func win(_ connection: PGConnection, _ duel: Duel, atMs: Int64) throws {
        let update = try connection.updateDuel(id: duel.id, .answer(
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
        // Two connections (two instances' lanes) apply the deadline that ends the game at once.
        let id = duel.id
        async let first = fixture.pool.run { db in try db.updateDuel(id: id, .advance(atMs: 20_000)) }
        async let second = fixture.pool.run { db in try db.updateDuel(id: id, .advance(atMs: 20_000)) }
        let results = try await [first, second]
        let one = try fixture.connect()
        defer { one.close() }
        #expect(results.filter { $0?.events.contains { $0.kind == .complete } == true }.count == 1)
        #expect(try one.query("SELECT count(*) AS n FROM game_progress WHERE duel_id = \(duel.id)::uuid")[0].int("n") == 2)
        for player in players {
            #expect(try progress(one, player).games == 1)
            #expect(try one.query("""
                SELECT count(*) AS n FROM notifications WHERE player_id = \(player)::uuid AND data->>'code' = 'first_game'
                """)[0].int("n") == 1)
        }
        // A draw at 0:0 (nobody answered): both share first place, 40 XP each.
        #expect(try progress(one, players[0]).xp == 40)
        // The same facts again (a retry, a replay) fail the transaction: nothing is granted twice.
        #expect(throws: PGError.self) {
            try one.query("""
                SELECT record_progress(ARRAY[\(duel.id)]::uuid[], ARRAY[\(players[0])]::uuid[], ARRAY[1], ARRAY['ranked'],
                                       ARRAY[20000]::bigint[], ARRAY[0], ARRAY[1], ARRAY[true], ARRAY[false], ARRAY[true],
                                       ARRAY[2], ARRAY[NULL]::bigint[])
                """)
        }
        #expect(try progress(one, players[0]).xp == 40)
    }

    @Test func theStreakCountsDaysInEachPlayersTimeZoneAcrossMidnight() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "z\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        try connection.setTimeZone(player: players[0], "Asia/Tokyo")
        try connection.setTimeZone(player: players[1], "America/New_York")
        #expect(throws: StoreError(.badRequest, "time_zone: unknown time zone Mars/Olympus")) {
            try connection.setTimeZone(player: players[0], "Mars/Olympus")
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
        let goals = try connection.setGoal(player: players[0], GoalDraft(kind: .wins, bank: nil, target: 1))
        #expect(goals.count == 1 && goals[0]["progress"] == 0 && goals[0]["reached"] == false)
        #expect(throws: StoreError(.unknownBank)) {
            try connection.setGoal(player: players[0], GoalDraft(kind: .games, bank: "no-such-bank", target: 3))
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let duel = try game(fixture, players, atMs: now)
        try win(connection, duel, atMs: now + 500)
        let after = try connection.goals(player: players[0])
        #expect(after[0]["progress"] == 1 && after[0]["reached"] == true)
        // 10 (right) + 40 (won) + 100 (the goal): level 2 at 100 XP.
        #expect(try progress(connection, players[0]).xp == 150)
        // Setting the goal again (a higher target) does not reopen it: its XP is given once.
        let again = try connection.setGoal(player: players[0], GoalDraft(kind: .wins, bank: nil, target: 2))
        #expect(again[0]["target"] == 2 && again[0]["reached"] == true)
        let next = try game(fixture, players, atMs: now + 20_000)
        try win(connection, next, atMs: now + 20_500)
        #expect(try progress(connection, players[0]).xp == 150 + 50)
        // A new goal this week's games already meet is reached at once, without XP.
        let met = try connection.setGoal(player: players[0], GoalDraft(kind: .games, bank: nil, target: 1))
        #expect(met.first { $0["kind"] == "games" }?["reached"] == true)
        #expect(try progress(connection, players[0]).xp == 200)
        let kinds = try connection.query("""
            SELECT kind FROM notifications WHERE player_id = \(players[0])::uuid ORDER BY id
            """).map { try $0.string("kind") }
        #expect(kinds.contains("goal_reached") && kinds.contains("level_up") && kinds.contains("achievement"))
        let achievements = try connection.achievements(player: players[0])
        #expect(achievements.count >= 12)
        let earned = achievements.filter { $0["earned_at"] != .null }.compactMap { $0["code"]?.string }
        #expect(Set(earned) == ["first_game", "first_win", "speedster", "goal_reached"])
        #expect(try connection.notifications(player: players[0], limit: 50, before: nil)["unseen"] == .number(kinds.count))
    }

    @Test func oldNotificationsArePrunedByTheUpkeep() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(1, prefix: "n\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        try connection.notify(players[0], kind: "achievement", ["code": "first_game", "title": "First steps"])
        try connection.notify(players[0], kind: "achievement", ["code": "first_win", "title": "First win"])
        try connection.query("""
            UPDATE notifications SET created_at = now() - interval '91 days'
             WHERE player_id = \(players[0])::uuid AND data->>'code' = 'first_game'
            """)
        _ = try connection.runUpkeep(notificationRetentionDays: 90)
        let left = try connection.notifications(player: players[0], limit: 10, before: nil)
        guard case .array(let items)? = left["notifications"] else { Issue.record("no list"); return }
        #expect(items.count == 1 && items[0]["data"]?["code"] == "first_win")
    }
}
