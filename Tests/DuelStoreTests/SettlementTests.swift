import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Settling ended games (issue 24; docs/ARCHITECTURE.md, "Settling a finished game"). On plain
/// Postgres a round writes what its ended games owe their players in its own transaction; on
/// Citus it records the debt in `duel_settlements` and settles it right after its commit. The
/// Citus way is exercised here on plain Postgres (its statements run on both); the cluster suite
/// checks that its round stays on one shard.
@Suite struct SettlementTests {
    static let rules = DuelConfiguration(countdownMs: 0, answerWindowMs: 10_000, revealMs: 0, questionCount: 3)

    /// A fresh ranked duel of general-science, question 0 open.
    func duel(_ fixture: StoreFixture) async throws -> Duel {
        let ids = try await fixture.players(2, prefix: "s\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        let bank = try #require(try QuizRepository(connection).bank(slug: "general-science")).id
        return try connection.transaction {
            try DuelRepository($0).createGames(bankID: bank, games: [ids], mode: .ranked, configuration: Self.rules,
                                               nowMs: 1_000)[0].duel
        }
    }

    /// An answer by seat 0, then seat 1 forfeits: the game ends.
    func play(_ duel: Duel, on connection: PGConnection, lane: inout DuelLaneState) -> [DuelUpdate?] {
        let items = [
            DuelInputItem(duelID: duel.id, input: .answer(player: duel.players[0].id, questionIndex: 0, choice: 0, atMs: 1_500)),
            DuelInputItem(duelID: duel.id, input: .forfeit(player: duel.players[1].id, atMs: 2_000)),
        ]
        return items.map { DuelRepository(connection).applyInputs([$0], lane: &lane)[0] }.map { try? $0.get() }
    }

    func count(_ connection: PGConnection, _ table: String, duel: Duel) throws -> Int {
        try connection.query("SELECT count(*) AS n FROM \(unsafeRaw: table) WHERE duel_id = \(duel.id)::uuid")[0].int("n")
    }

    @Test func plainPostgresSettlesInTheRoundAndRecordsNothing() async throws {
        let fixture = try StoreFixture(workers: 1)
        let game = try await duel(fixture)
        let connection = try fixture.connect()
        defer { connection.close() }
        var lane = DuelLaneState()
        #expect(play(game, on: connection, lane: &lane).last??.finished == true)
        #expect(try count(connection, "rating_history", duel: game) == 2)
        #expect(try count(connection, "live_duel_players", duel: game) == 0)
        #expect(try count(connection, "game_progress", duel: game) == 1)
        #expect(try count(connection, "duel_settlements", duel: game) == 0)
    }

    @Test func theCitusWaySettlesRightAfterTheRound() async throws {
        let fixture = try StoreFixture(workers: 1)
        let game = try await duel(fixture)
        let connection = try fixture.connect()
        defer { connection.close() }
        var lane = DuelLaneState(distributed: true)
        #expect(play(game, on: connection, lane: &lane).last??.finished == true)
        #expect(lane.unsettled == 0)
        #expect(try count(connection, "rating_history", duel: game) == 2)
        #expect(try count(connection, "live_duel_players", duel: game) == 0)
        #expect(try count(connection, "game_progress", duel: game) == 1)
        #expect(try count(connection, "duel_settlements", duel: game) == 0)
    }

    /// A settlement that fails after the round committed (here: a player's marker is locked
    /// past the lane's lock timeout) leaves its record; the sweep settles the game from its
    /// log, once, and the round's answer and end stand.
    @Test func aFailedSettlementWaitsForTheSweepWhichSettlesItOnce() async throws {
        let fixture = try StoreFixture(workers: 1)
        let game = try await duel(fixture)
        let blocker = try fixture.connect()
        defer { blocker.close() }
        try blocker.execute(script: "BEGIN")
        _ = try blocker.query("SELECT 1 FROM live_duel_players WHERE player_id = \(game.players[0].id)::uuid FOR UPDATE")
        let connection = try fixture.connect()
        defer { connection.close() }
        try connection.execute(script: "SET lock_timeout = 300")
        var lane = DuelLaneState(distributed: true)
        let updates = play(game, on: connection, lane: &lane)
        let answered: Bool = if case .answered? = updates.first??.outcome { true } else { false }
        #expect(answered)
        #expect(updates.last??.finished == true)
        #expect(lane.unsettled == 1)
        #expect(try count(connection, "duel_settlements", duel: game) == 1)
        #expect(try count(connection, "rating_history", duel: game) == 0)
        #expect(try count(connection, "live_duel_players", duel: game) == 2)
        // The players are still in the game until it is settled: queueing is refused.
        #expect(throws: StoreError.self) { try QueueRepository(connection).enqueue(player: game.players[1].id, bank: "general-science") }

        try blocker.execute(script: "ROLLBACK")
        let outbox = Outbox()
        // A young record is left to the lane that is settling it.
        #expect(try DuelRepository(connection).settlePending(outbox: outbox).settled == 0)
        let report = try DuelRepository(connection).settlePending(olderThanSeconds: 0, outbox: outbox)
        #expect(report.settled == 1 && report.failures.isEmpty)
        #expect(try DuelRepository(connection).settlePending(olderThanSeconds: 0).settled == 0)
        #expect(try count(connection, "rating_history", duel: game) == 2)
        #expect(try count(connection, "game_progress", duel: game) == 1)
        #expect(try count(connection, "live_duel_players", duel: game) == 0)
        #expect(try count(connection, "duel_settlements", duel: game) == 0)
        let games = try connection.query("""
            SELECT sum(games) AS n FROM ratings WHERE player_id = ANY(\(PGArray(game.players.map { Optional($0.id) }))::uuid[])
            """)[0].int("n")
        #expect(games == 2, "each player rated once")
        // What the settlement granted is there for the server to deliver (first game, first win).
        #expect(!outbox.isEmpty)
        _ = try QueueRepository(connection).enqueue(player: game.players[1].id, bank: "general-science")
    }

    /// A settler whose state is older than the record (another instance's later round ended the
    /// game while the record waited) settles the newer debt, rebuilt from the log: the end's
    /// ratings and markers, not the older state's nothing.
    @Test func aSettlerWithAnOlderStateSettlesTheRecordedOne() async throws {
        let fixture = try StoreFixture(workers: 1)
        let game = try await duel(fixture)
        let connection = try fixture.connect()
        defer { connection.close() }
        // The answer's state (input 1), as a lane holds it.
        var lane = DuelLaneState(distributed: true)
        _ = DuelRepository(connection).applyInputs([DuelInputItem(duelID: game.id, input: .answer(
            player: game.players[0].id, questionIndex: 0, choice: 0, atMs: 1_500))], lane: &lane)
        let answered = try #require(lane.cachedState(of: game.id, version: 1))
        // The end (input 2) is recorded but not settled: its settlement is blocked.
        let blocker = try fixture.connect()
        defer { blocker.close() }
        try blocker.execute(script: "BEGIN")
        _ = try blocker.query("SELECT 1 FROM live_duel_players WHERE player_id = \(game.players[0].id)::uuid FOR UPDATE")
        try connection.execute(script: "SET lock_timeout = 300")
        _ = DuelRepository(connection).applyInputs([DuelInputItem(duelID: game.id, input: .forfeit(
            player: game.players[1].id, atMs: 2_000))], lane: &lane)
        try blocker.execute(script: "ROLLBACK")
        #expect(try connection.query("SELECT version FROM duel_settlements WHERE duel_id = \(game.id)::uuid")[0].int("version") == 2)
        // A settler holding the older state claims the record.
        var stale = DuelSettlements()
        stale.add(answered, duelID: game.id, bankID: 1, version: 1, announce: true)
        try DuelRepository(connection).settle(stale, announces: false, outbox: Outbox())
        #expect(try count(connection, "rating_history", duel: game) == 2)
        #expect(try count(connection, "live_duel_players", duel: game) == 0)
        #expect(try count(connection, "duel_settlements", duel: game) == 0)
    }

    /// Players who left one game that plays on are listed again whenever another leaves it; a
    /// batch that also has someone leave another game must not take the marker such a player
    /// now holds in that other game (each marker goes by its own pair).
    @Test func aLeaverOfOneGameKeepsTheMarkerOfTheNextWhenBothLoseAPlayerInOneBatch() async throws {
        let fixture = try StoreFixture(workers: 1)
        let ids = try await fixture.players(5, prefix: "l\(UUID().uuidString.prefix(6))")
        let (p, q, r, s, t) = (ids[0], ids[1], ids[2], ids[3], ids[4])
        let connection = try fixture.connect()
        defer { connection.close() }
        let bank = try #require(try QuizRepository(connection).bank(slug: "general-science")).id
        func create(_ players: [PlayerID]) throws -> Duel {
            try connection.transaction {
                try DuelRepository($0).createGames(bankID: bank, games: [players], mode: .room, configuration: Self.rules,
                                                   nowMs: 1_000)[0].duel
            }
        }
        let first = try create([p, q, r])
        var lane = DuelLaneState()
        _ = DuelRepository(connection).applyInputs([DuelInputItem(duelID: first.id, input: .forfeit(player: p, atMs: 1_200))],
                                                   lane: &lane)
        // p has left the first game (which plays on) and sits in a second one.
        let second = try create([p, s, t])
        let results = DuelRepository(connection).applyInputs([
            DuelInputItem(duelID: first.id, input: .forfeit(player: q, atMs: 1_400)),
            DuelInputItem(duelID: second.id, input: .forfeit(player: s, atMs: 1_400)),
        ], lane: &lane)
        #expect(results.allSatisfy { (try? $0.get()) != nil })
        let markers = Set(try connection.query("""
            SELECT player_id::text || '/' || duel_id::text AS m FROM live_duel_players
             WHERE player_id = ANY(\(PGArray(ids.map { Optional($0) }))::uuid[])
            """).map { try $0.string("m") })
        // The first game ended (one player left); the second plays on with p and t.
        #expect(markers == ["\(p)/\(second.id)", "\(t)/\(second.id)"])
    }
}
