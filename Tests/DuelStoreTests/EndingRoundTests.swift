import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Games' ends gathered into a lane's ending round (issue 25, ``EndingInputs``): on plain
/// Postgres a round holds back the inputs that would end games, and the lane applies the ends of
/// several rounds' games in one transaction a little later, then answers them.
@Suite struct EndingRoundTests {
    /// What a completion saw: its result, and the ratings another connection saw at that moment.
    final class Seen: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var update: DuelUpdate?
        var outcome: DuelStep.Outcome?
        var ratings: Int?
    }

    /// Two games end in two rounds 100 ms apart; the lane waits up to 400 ms for more ends.
    @Test func endsOfTwoRoundsCommitTogetherWithTheirRatingsAndNobodyHearsBefore() async throws {
        let fixture = try StoreFixture(workers: 1)
        let games = [try await SettlementTests().duel(fixture), try await SettlementTests().duel(fixture)]
        let lanes = DuelLanes(conninfo: fixture.conninfo, count: 1, origin: "ending", endGatherMs: 400,
                              logger: .init(label: "ending"))
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
                seen.outcome = seen.update?.outcome
                if let reader = try? PGConnection(conninfo) {
                    defer { reader.close() }
                    seen.ratings = try? reader.query(
                        "SELECT count(*) AS n FROM rating_history WHERE duel_id = \(game.id)::uuid")[0].int("n")
                }
                seen.done.signal()
            }
            return seen
        }
        func state(_ game: Duel) throws -> String {
            try connection.query("SELECT state FROM duels WHERE id = \(game.id)::uuid")[0].string("state")
        }
        // A first round per game (the lane learns its state), then the forfeits that end them.
        for game in games {
            let answered = submit(game, .answer(player: game.players[0].id, questionIndex: 0, choice: 0, atMs: 1_500))
            #expect(answered.done.wait(timeout: .now() + 10) == .success)
        }
        let started = ContinuousClock.now
        let first = submit(games[0], .forfeit(player: games[0].players[1].id, atMs: 2_000))
        try await Task.sleep(for: .milliseconds(100))
        // Held, not committed: the game is live and nothing of its end is written.
        #expect(try state(games[0]) != "finished")
        #expect(try SettlementTests().count(connection, "rating_history", duel: games[0]) == 0)
        // A later input of the held game waits behind its end, and comes after it.
        let late = submit(games[0], .answer(player: games[0].players[1].id, questionIndex: 0, choice: 1, atMs: 2_100))
        let second = submit(games[1], .forfeit(player: games[1].players[1].id, atMs: 2_000))
        for seen in [first, late, second] { #expect(seen.done.wait(timeout: .now() + 10) == .success) }
        // Answered after the window, each once its game's ratings were written.
        #expect(ContinuousClock.now - started >= .milliseconds(350))
        #expect(first.update?.finished == true && second.update?.finished == true)
        #expect(first.ratings == 2 && second.ratings == 2)
        if case .rejected(let refusal) = late.outcome { #expect(refusal.code == .duelOver) } else {
            Issue.record("the late answer was not refused: \(String(describing: late.outcome))")
        }
        for game in games {
            #expect(try state(game) == "finished")
            #expect(try SettlementTests().count(connection, "live_duel_players", duel: game) == 0)
            #expect(try SettlementTests().count(connection, "game_progress", duel: game) == 1)
            #expect(try SettlementTests().count(connection, "duel_settlements", duel: game) == 0)
        }
        // One transaction ended both games and wrote their ratings (PROTOCOL.md, rule 9).
        let ids = PGArray(games.map(\.id))
        let writers = try connection.query("""
            SELECT count(DISTINCT x) AS n FROM (
                SELECT xmin::text AS x FROM rating_history WHERE duel_id = ANY(\(ids)::uuid[])
                UNION ALL SELECT xmin::text FROM duels WHERE id = ANY(\(ids)::uuid[])) w
            """)[0].int("n")
        #expect(writers == 1)
    }
}
