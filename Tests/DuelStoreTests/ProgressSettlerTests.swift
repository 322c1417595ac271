import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Progress granted apart from the lane (issue 25, ``ProgressSettler``): on plain Postgres the
/// round that ends a game writes its end and ratings (PROTOCOL.md, rule 9) and records that the
/// game owes progress; the settler grants the progress of a window's games in one transaction of
/// its own, and only then are the games' inputs answered.
@Suite struct ProgressSettlerTests {
    /// What a completion saw: its result, and what another connection saw at that moment.
    final class Seen: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var update: DuelUpdate?
        var progress: Int?
    }

    func count(_ connection: PGConnection, _ table: String, duel: Duel) throws -> Int {
        try SettlementTests().count(connection, table, duel: duel)
    }

    /// The transactions that wrote `table`'s rows of `games` (`duel_id`, or `id` for duels).
    func writers(_ connection: PGConnection, _ table: String, _ games: [Duel], key: String = "duel_id") throws -> Set<String> {
        Set(try connection.query("""
            SELECT DISTINCT xmin::text AS x FROM \(unsafeRaw: table) WHERE \(unsafeRaw: key) = ANY(\(PGArray(games.map(\.id)))::uuid[])
            """).map { try $0.string("x") })
    }

    /// Two games end in rounds a moment apart; the settler waits up to 2 s for more (a window
    /// long enough that a loaded machine's stall does not split the two).
    @Test func progressOfAWindowsGamesIsGrantedTogetherBeforeTheirEndsAreAnswered() async throws {
        let fixture = try StoreFixture(workers: 1)
        let games = [try await SettlementTests().duel(fixture), try await SettlementTests().duel(fixture)]
        let lanes = DuelLanes(conninfo: fixture.conninfo, count: 1, origin: "settler", progressGatherMs: 2_000,
                              logger: .init(label: "settler"))
        defer { lanes.shutdown() }
        // Alone, as a server with no other instance: events are not announced.
        lanes.setAnnouncing(false)
        let connection = try fixture.connect()
        defer { connection.close() }
        let conninfo = fixture.conninfo
        func submit(_ game: Duel, _ input: DuelInput) -> Seen {
            let seen = Seen()
            lanes.submit(duel: game.id, input) { result in
                seen.update = (try? result.get()) ?? nil
                if let reader = try? PGConnection(conninfo) {
                    defer { reader.close() }
                    seen.progress = try? reader.query(
                        "SELECT count(*) AS n FROM game_progress WHERE duel_id = \(game.id)::uuid")[0].int("n")
                }
                seen.done.signal()
            }
            return seen
        }
        // A first round per game (the lane learns its state), then the forfeits that end them.
        for game in games {
            let answered = submit(game, .answer(player: game.players[0].id, questionIndex: 0, choice: 0, atMs: 1_500))
            #expect(answered.done.wait(timeout: .now() + 10) == .success)
        }
        let started = ContinuousClock.now
        let first = submit(games[0], .forfeit(player: games[0].players[1].id, atMs: 2_000))
        let committed = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < committed,
              try connection.query("SELECT state FROM duels WHERE id = \(games[0].id)::uuid")[0].string("state") != "finished" {
            try await Task.sleep(for: .milliseconds(10))
        }
        // The round committed the end with its ratings and its record; the progress and the
        // reply wait.
        #expect(try connection.query("SELECT state FROM duels WHERE id = \(games[0].id)::uuid")[0].string("state") == "finished")
        #expect(try count(connection, "rating_history", duel: games[0]) == 2)
        #expect(try writers(connection, "rating_history", [games[0]]) == writers(connection, "duels", [games[0]], key: "id"))
        #expect(try count(connection, "game_progress", duel: games[0]) == 0)
        #expect(try connection.query("""
            SELECT progress_only FROM duel_settlements WHERE duel_id = \(games[0].id)::uuid
            """).map { try $0.bool("progress_only") } == [true])
        #expect(first.done.wait(timeout: .now()) == .timedOut)
        let second = submit(games[1], .forfeit(player: games[1].players[1].id, atMs: 2_000))
        for seen in [first, second] { #expect(seen.done.wait(timeout: .now() + 10) == .success) }
        // Answered after the window, each once its game's progress was written.
        #expect(ContinuousClock.now - started >= .milliseconds(1_950))
        #expect(first.update?.finished == true && second.update?.finished == true)
        #expect(first.progress == 1 && second.progress == 1)
        for game in games {
            #expect(try count(connection, "rating_history", duel: game) == 2)
            #expect(try count(connection, "duel_settlements", duel: game) == 0)
        }
        // One transaction granted both games' progress, apart from the rounds that ended them.
        let granted = try writers(connection, "game_progress", games)
        #expect(granted.count == 1)
        #expect(granted.isDisjoint(with: try writers(connection, "duels", games, key: "id")))
        #expect(lanes.statistics.progressSettlements == 1)
    }

    /// A round's record that no settler took (the server died after the round's commit) is
    /// settled by the sweep from the game's log, once: the progress, not the ratings again.
    @Test func aRecordLeftByACrashIsSettledOnceAndOwesOnlyProgress() async throws {
        let fixture = try StoreFixture(workers: 1)
        let game = try await SettlementTests().duel(fixture)
        let connection = try fixture.connect()
        defer { connection.close() }
        var lane = DuelLaneState(announces: false)
        lane.progressApart = true
        #expect(SettlementTests().play(game, on: connection, lane: &lane).last??.finished == true)
        #expect(lane.owedProgress.duelIDs == [game.id])
        #expect(try count(connection, "rating_history", duel: game) == 2)
        #expect(try count(connection, "live_duel_players", duel: game) == 0)
        #expect(try count(connection, "game_progress", duel: game) == 0)
        #expect(try count(connection, "duel_settlements", duel: game) == 1)
        let repository = DuelRepository(connection)
        #expect(try repository.settlePending(olderThanSeconds: 0).settled == 1)
        #expect(try repository.settlePending(olderThanSeconds: 0).settled == 0)
        #expect(try count(connection, "game_progress", duel: game) == 1)
        #expect(try count(connection, "rating_history", duel: game) == 2)
        let games = try connection.query("""
            SELECT sum(games) AS n FROM ratings WHERE player_id = ANY(\(PGArray(game.players.map { Optional($0.id) }))::uuid[])
            """)[0].int("n")
        #expect(games == 2, "each player rated once")
    }
}
