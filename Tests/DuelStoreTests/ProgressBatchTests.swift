import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// `record_progress` for a batch of games in one call (issue 25): the achievements that read a
/// player's history (giant_slayer, ranked_streak_5, bank_100) are judged from the batch's own
/// reads of that history, each granted once however many of the batch's games earn it, and a
/// player's level-up is one notification for the level reached.
/// (A batch is granted on a lane's connection, whose sessions refuse sequential scans and JIT.)
@Suite struct ProgressBatchTests {
    @Test func aBatchJudgesHistoryAchievementsOnceAndNotifiesOneLevelUpAPlayer() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(4, prefix: "b\(UUID().uuidString.prefix(6))")
        let games = try RankedGames(fixture)
        defer { games.close() }
        let connection = games.connection, bank = games.bank
        func duel(_ pair: [PlayerID]) throws -> String { try games.duel(pair) }
        func rated(_ duel: String, _ player: PlayerID, won: Bool, before: Double) throws {
            try games.rated(duel, player, outcome: won ? "win" : "loss", before: before)
        }
        // Seat 0 wins five ranked games on one bank, all right (20 of 20); in the first its
        // rival was rated 250 above it. Seat 2 wins one whose rival was rated 150 above.
        var columns = ProgressColumns()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for game in 0..<5 {
            let id = try duel([players[0], players[1]])
            try rated(id, players[0], won: true, before: 1_300)
            try rated(id, players[1], won: false, before: game == 0 ? 1_550 : 1_300)
            columns.append(GameFacts(player: players[0], correct: 20, questions: 20, answered: 20, rivalsAtFirstQuestion: 1,
                                     firstPlace: true, won: true, stayed: true, fastestCorrectMs: 800, players: 2),
                           duelID: id, bankID: bank, mode: .ranked, finishedAtMs: now + Int64(game) * 60_000)
            columns.append(GameFacts(player: players[1], correct: 0, questions: 20, answered: 1, rivalsAtFirstQuestion: 1,
                                     firstPlace: false, won: false, stayed: true, fastestCorrectMs: nil, players: 2),
                           duelID: id, bankID: bank, mode: .ranked, finishedAtMs: now + Int64(game) * 60_000)
        }
        let other = try duel([players[2], players[3]])
        try rated(other, players[2], won: true, before: 1_400)
        try rated(other, players[3], won: false, before: 1_550)
        columns.append(GameFacts(player: players[2], correct: 3, questions: 20, answered: 5, rivalsAtFirstQuestion: 1,
                                 firstPlace: true, won: true, stayed: true, fastestCorrectMs: 4_000, players: 2),
                       duelID: other, bankID: bank, mode: .ranked, finishedAtMs: now)
        columns.append(GameFacts(player: players[3], correct: 2, questions: 20, answered: 5, rivalsAtFirstQuestion: 1,
                                 firstPlace: false, won: false, stayed: true, fastestCorrectMs: 5_000, players: 2),
                       duelID: other, bankID: bank, mode: .ranked, finishedAtMs: now)
        // Granted on a lane's own kind of connection (the progress settler's), with its
        // settings: no sequential scans, and no statement compiled (an aggregate of
        // progress_rules by a scan was, at every call, before the settings said so).
        #expect(try games.lane.query("SHOW jit")[0].string("jit") == "off")
        let payloads = try games.grant(columns)

        func held(_ player: PlayerID) throws -> Set<String> { try games.held(player) }
        #expect(try held(players[0]) == ["first_game", "first_win", "perfect_game", "speedster", "giant_slayer",
                                         "ranked_streak_5", "bank_100"])
        #expect(try held(players[1]) == ["first_game"])
        #expect(try held(players[2]) == ["first_game", "first_win"])
        #expect(try held(players[3]) == ["first_game"])
        // One notification per grant, and one level-up per player whose level rose (seat 0:
        // 5 × 240 XP; seat 1: none; seat 2: 70 XP, still level 1), for the level reached.
        let notes = try connection.query("""
            SELECT player_id::text AS player, kind, data->>'level' AS level FROM notifications
             WHERE player_id = ANY(\(PGArray(players.map { Optional($0) }))::uuid[])
            """)
        func count(_ player: PlayerID, _ kind: String) throws -> Int {
            try notes.filter { try $0.string("player") == player && $0.string("kind") == kind }.count
        }
        for player in players { #expect(try count(player, "achievement") == held(player).count) }
        #expect(try count(players[0], "level_up") == 1 && count(players[1], "level_up") == 0)
        #expect(try count(players[2], "level_up") == 0)
        let reached = try connection.query("SELECT level_of(xp) AS level FROM player_progress WHERE player_id = \(players[0])::uuid")
        #expect(try notes.first { try $0.string("kind") == "level_up" }?.string("level") == String(reached[0].int("level")))
        #expect(payloads.count == notes.count)
    }

    /// Five ranked wins in a row are five paid wins among the last five rated results: a ranked
    /// loss without an answer pays nothing (no game_progress row) but breaks the run, and a
    /// rated win without an answer pays nothing and does not extend it (bench/NOTES.md, item 56).
    @Test(arguments: ["loss", "win"])
    func anUnansweredRankedGameBreaksTheRun(_ unansweredOutcome: String) async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "s\(UUID().uuidString.prefix(6))")
        let games = try RankedGames(fixture)
        defer { games.close() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // Games 0-3 and 5 are paid wins of seat 0; in game 4 it answers nothing.
        for game in 0..<6 {
            let answered = game != 4
            let won = answered || unansweredOutcome == "win"
            let id = try games.duel(players)
            try games.rated(id, players[0], outcome: won ? "win" : "loss", before: 1_500)
            try games.rated(id, players[1], outcome: won ? "loss" : "win", before: 1_500)
            var columns = ProgressColumns()
            columns.append(GameFacts(player: players[0], correct: answered ? 1 : 0, questions: 3, answered: answered ? 1 : 0,
                                     rivalsAtFirstQuestion: 1, firstPlace: won, won: won, stayed: true,
                                     fastestCorrectMs: nil, players: 2),
                           duelID: id, bankID: games.bank, mode: .ranked, finishedAtMs: now + Int64(game) * 60_000)
            columns.append(GameFacts(player: players[1], correct: won ? 0 : 1, questions: 3, answered: 1,
                                     rivalsAtFirstQuestion: 1, firstPlace: !won, won: !won, stayed: true,
                                     fastestCorrectMs: nil, players: 2),
                           duelID: id, bankID: games.bank, mode: .ranked, finishedAtMs: now + Int64(game) * 60_000)
            _ = try games.grant(columns)
        }
        #expect(try games.connection.query("""
            SELECT count(*) AS n FROM game_progress WHERE player_id = \(players[0])::uuid AND won
            """)[0].int("n") == 5, "five paid wins, game 4 unpaid")
        #expect(try !games.held(players[0]).contains("ranked_streak_5"))
    }

    /// A game reaches the goals of the week it finished in, in the player's zone, even when the
    /// player's latest day (streak_day) is in a later week: one counted in another zone
    /// before a change of zone, or a game settled after a later one (bench/NOTES.md, item 56).
    @Test func aGameReachesTheGoalOfItsOwnWeek() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "w\(UUID().uuidString.prefix(6))")
        let games = try RankedGames(fixture)
        defer { games.close() }
        try games.connection.query("""
            INSERT INTO player_progress (player_id, time_zone, streak_day)
            VALUES (\(players[0])::uuid, 'UTC', (now() AT TIME ZONE 'UTC')::date + 7)
            """)
        try games.connection.query("""
            INSERT INTO weekly_goals (player_id, week_start, kind, target)
            VALUES (\(players[0])::uuid, date_trunc('week', now() AT TIME ZONE 'UTC')::date, 'games', 1)
            """)
        let id = try games.duel(players)
        var columns = ProgressColumns()
        for (seat, player) in players.enumerated() {
            columns.append(GameFacts(player: player, correct: 1 - seat, questions: 3, answered: 1, rivalsAtFirstQuestion: 1,
                                     firstPlace: seat == 0, won: seat == 0, stayed: true, fastestCorrectMs: nil, players: 2),
                           duelID: id, bankID: games.bank, mode: .challenge, finishedAtMs: Int64(Date().timeIntervalSince1970 * 1000))
        }
        _ = try games.grant(columns)
        #expect(try games.connection.query("""
            SELECT count(*) AS n FROM weekly_goals WHERE player_id = \(players[0])::uuid AND reached_at IS NOT NULL
            """)[0].int("n") == 1)
        #expect(try games.held(players[0]).contains("goal_reached"))
    }
}

/// Games for `record_progress` to grant: duel rows (rating_history's and game_progress's keys)
/// whose live markers go at once, their ratings written as the lanes write them before progress,
/// and the grant on a lane's own kind of connection (the progress settler's settings).
private struct RankedGames {
    let connection: PGConnection
    let lane: PGConnection
    let bank: Int
    private let rules = DuelConfiguration(countdownMs: 0, answerWindowMs: 10_000, revealMs: 0, questionCount: 1)

    init(_ fixture: StoreFixture) throws {
        connection = try fixture.connect()
        lane = try DuelLane.openConnection(fixture.conninfo, origin: "", distributed: false)
        bank = try #require(try QuizRepository(connection).bank(slug: "general-science")).id
    }

    func close() {
        connection.close()
        lane.close()
    }

    /// A new duel of `pair`, its players free again for the next.
    func duel(_ pair: [PlayerID]) throws -> String {
        let id = try connection.transaction {
            try DuelRepository($0).createGames(bankID: bank, games: [pair], mode: .ranked, configuration: rules,
                                               nowMs: 1_000)[0].duel.id
        }
        try connection.query("DELETE FROM live_duel_players WHERE duel_id = \(id)::uuid")
        return id
    }

    func rated(_ duel: String, _ player: PlayerID, outcome: String, before: Double) throws {
        try connection.query("""
            INSERT INTO rating_history (duel_id, player_id, bank_id, outcome, score, rating_before, rating_after,
                                        deviation_before, deviation_after, volatility_before, volatility_after)
            VALUES (\(duel)::uuid, \(player)::uuid, \(bank), \(outcome), 0, \(before), \(before), 100, 100, 0.06, 0.06)
            """)
    }

    @discardableResult
    func grant(_ columns: ProgressColumns) throws -> [String] {
        try lane.transaction { try columns.write(on: $0) }
    }

    func held(_ player: PlayerID) throws -> Set<String> {
        Set(try connection.query("SELECT code FROM player_achievements WHERE player_id = \(player)::uuid")
            .map { try $0.string("code") })
    }
}
