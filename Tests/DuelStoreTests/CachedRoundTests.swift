import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// The lane's one-round-trip round (``DuelRepository/applyCachedRound(_:lane:outbox:)``) and the
/// pipeline under it: what a guess from the cache could break when another instance moved a duel on.
@Suite struct CachedRoundTests {
    let batches = LaneBatchTests()

    func inputs(_ connection: PGConnection, _ duel: Duel) throws -> [String] {
        try connection.query("""
            SELECT kind || ':' || coalesce(question_index::text, '-') AS input FROM duel_inputs
             WHERE duel_id = \(duel.id)::uuid ORDER BY n
            """).map { try $0.string("input") }
    }

    /// A fresh duel, a connection, and two lanes (two instances) whose first lane answered a
    /// wrong answer for seat 0 and so holds the duel in its cache with its bank.
    func duelOnTwoLanes() async throws -> (Duel, PGConnection, DuelLaneState, DuelLaneState) {
        let fixture = try StoreFixture(workers: 1)
        let duel = try await batches.duels(fixture, 1)[0]
        let connection = try fixture.connect()
        var lane1 = DuelLaneState()
        _ = DuelRepository(connection).applyInputs([batches.answer(duel, seat: 0, correct: false)], lane: &lane1)
        return (duel, connection, lane1, DuelLaneState())
    }

    @Test func aPipelineIsOneTransaction() async throws {
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        try connection.execute(script: "CREATE TABLE pipeline_probe (n int PRIMARY KEY)")
        let rows = try connection.pipeline([
            "INSERT INTO pipeline_probe VALUES (1) RETURNING n", "SELECT count(*) AS n FROM pipeline_probe",
        ])
        #expect(try rows.map { try $0[0].int("n") } == [1, 1])
        // The second statement fails: the first one's row goes too, the third never runs, and
        // the error thrown is the failing statement's.
        let failure = #expect(throws: PGError.self) {
            try connection.pipeline(["INSERT INTO pipeline_probe VALUES (2)", "INSERT INTO pipeline_probe VALUES (1)",
                                     "INSERT INTO pipeline_probe VALUES (3)"])
        }
        #expect(failure?.sqlState == "23505")
        // The connection is usable again, and nothing of the failed pipelines stayed.
        #expect(try connection.query("SELECT array_agg(n ORDER BY n)::text AS all FROM pipeline_probe")[0].string("all") == "{1}")
    }

    @Test func aCachedRoundGivesWhatTheLockingPathGives() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duel = try await batches.duels(fixture, 1)[0]
        let connection = try fixture.connect()
        defer { connection.close() }
        var lane = DuelLaneState()
        // The first round reads the bank; the second is a cached round.
        let first = DuelRepository(connection).applyInputs([batches.answer(duel, seat: 0, correct: false)], lane: &lane)
        #expect(try first[0].get()?.outcome == .answered(correct: false, points: 0))
        #expect(lane.cache.latest(of: duel.id)?.bankID != nil)
        let second = DuelRepository(connection).applyCachedRound(
            [batches.answer(duel, seat: 1, correct: true, at: 1_600)], lane: &lane, outbox: Outbox())
        #expect(try second?[0].get()?.outcome == .answered(correct: true, points: 200))
        #expect(try inputs(connection, duel) == ["answer:0", "answer:0"])
        // The stored log rebuilds the state the cache holds.
        let rebuilt = try DuelRepository(connection).rebuildDuels([duel.id])[duel.id]
        #expect(rebuilt?.version == 2 && rebuilt?.duel == lane.cache.latest(of: duel.id)?.duel)
    }

    /// Lane 1 guesses from its cache, but another instance (lane 2) answered meanwhile: the
    /// answer lane 1 would log takes a number that exists, nothing of the round stays, and the
    /// locking path refuses it on the stored state.
    @Test func aGuessThatWouldLogOnAMovedDuelIsRedoneOnTheStoredState() async throws {
        let (duel, connection, first, second) = try await duelOnTwoLanes()
        defer { connection.close() }
        var lane1 = first, lane2 = second
        let elsewhere = DuelRepository(connection).applyInputs(
            [batches.answer(duel, seat: 1, correct: true, at: 1_600)], lane: &lane2)
        #expect(try elsewhere[0].get()?.outcome == .answered(correct: true, points: 200))
        // On lane 1's cached state seat 1 has not answered yet; on the stored one it has.
        let late = DuelRepository(connection).applyInputs(
            [batches.answer(duel, seat: 1, correct: true, at: 1_700)], lane: &lane1)
        #expect(try late[0].get()?.outcome != .answered(correct: true, points: 200))
        #expect(try inputs(connection, duel) == ["answer:0", "answer:0"])
        #expect(try connection.query("SELECT inputs FROM duels WHERE id = \(duel.id)::uuid")[0].int("inputs") == 2)
    }

    /// Lane 1's cache still has question 0 open, while another instance moved the duel on to
    /// question 1: an answer to question 1 is refused on the cached state and logs nothing, so
    /// the cached round commits; the version it read shows the duel moved, and the answer is
    /// redone on the stored state, where it counts. The lane catches that state up from the one it
    /// holds, reading and replaying only the inputs logged since, not the whole game from its
    /// start: the start state is made unreadable to show it (a rebuild from the start fails).
    @Test func aRefusalOnAMovedDuelIsRedoneOnTheStoredState() async throws {
        let (duel, connection, first, second) = try await duelOnTwoLanes()
        defer { connection.close() }
        var lane1 = first, lane2 = second
        _ = DuelRepository(connection).applyInputs([
            batches.answer(duel, seat: 1, correct: false, at: 1_600), DuelInputItem(duelID: duel.id, input: .advance(atMs: 1_700)),
        ], lane: &lane2)
        let moved = try #require(lane2.cache.latest(of: duel.id))
        #expect(moved.duel.questionIndex == 1 && moved.duel.phase == .question)
        _ = try connection.query("UPDATE duel_starts SET base_state = '{}' WHERE duel_id = \(duel.id)::uuid")
        #expect(throws: (any Error).self) { try DuelRepository(connection).rebuildDuels([duel.id]) }
        let question = duel.questions[1]
        let answer = DuelInputItem(duelID: duel.id, input: .answer(
            player: duel.players[0].id, questionIndex: 1, choice: question.correctChoice!, atMs: 1_800))
        let results = DuelRepository(connection).applyInputs([answer], lane: &lane1)
        guard case .answered(correct: true, _)? = try results[0].get()?.outcome else {
            Issue.record("the answer to question 1 was not counted: \(String(describing: results[0]))")
            return
        }
        #expect(try inputs(connection, duel).last == "answer:1")
        var expected = moved.duel
        _ = expected.apply(answer.input)
        #expect(lane1.cache.latest(of: duel.id)?.version == moved.version + 1)
        #expect(lane1.cache.latest(of: duel.id)?.duel == expected)
    }

    /// A refusal that stands (``DuelStep/refusalStands``) is not checked against the stored state:
    /// seat 0 already answered question 0 in lane 1's cache, and answering it again is refused on
    /// every later state. So the round reads nothing and redoes nothing even though another
    /// instance moved the duel on (lane 1's cache keeps its old state), and a round of nothing
    /// else sends nothing to Postgres: it is refused on a closed connection too.
    @Test func aRefusalThatStandsNeedsNoRead() async throws {
        let (duel, connection, first, second) = try await duelOnTwoLanes()
        defer { connection.close() }
        var lane1 = first, lane2 = second
        let cached = try #require(lane1.cache.latest(of: duel.id)?.version)
        _ = DuelRepository(connection).applyInputs([
            batches.answer(duel, seat: 1, correct: false, at: 1_600), DuelInputItem(duelID: duel.id, input: .advance(atMs: 1_700)),
        ], lane: &lane2)
        let again = batches.answer(duel, seat: 0, correct: true, at: 1_800)
        let results = DuelRepository(connection).applyInputs([again], lane: &lane1)
        #expect(try results[0].get()?.outcome == .rejected(ProtocolError(.alreadyAnswered)))
        // Its state may be stale: the update arms no timer.
        #expect(try results[0].get()?.nextDeadlineMs == nil)
        #expect(lane1.cache.latest(of: duel.id)?.version == cached)
        // The stored duel moved on past the cached version, and nothing was logged for the refusal.
        #expect(try connection.query("SELECT inputs FROM duels WHERE id = \(duel.id)::uuid")[0].int("inputs") == cached + 1)
        connection.close()
        let closed = try #require(DuelRepository(connection).applyCachedRound([again], lane: &lane1, outbox: Outbox()))
        #expect(try closed[0].get()?.outcome == .rejected(ProtocolError(.alreadyAnswered)))
    }

    /// A cached round that finishes a ranked game (a forfeit after a first answer) writes what
    /// the locking path writes: the finish, both ratings once, the progress that pays, the live
    /// markers gone, and the notifications in the outbox.
    @Test func aCachedRoundThatFinishesAGameWritesItsCompletion() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duel = try await batches.duels(fixture, 1)[0]
        let connection = try fixture.connect()
        defer { connection.close() }
        var lane = DuelLaneState(announces: false)
        _ = DuelRepository(connection).applyInputs([batches.answer(duel, seat: 0, correct: true)], lane: &lane)
        let outbox = Outbox()
        let results = try #require(DuelRepository(connection).applyCachedRound(
            [DuelInputItem(duelID: duel.id, input: .forfeit(player: duel.players[1].id, atMs: 1_700))],
            lane: &lane, outbox: outbox))
        #expect(try results[0].get()?.finished == true)
        let row = try connection.query("""
            SELECT state, finished_at IS NOT NULL AS stamped, winner::text AS winner,
                   (SELECT count(*) FROM rating_history WHERE duel_id = d.id) AS ratings,
                   (SELECT count(*) FROM game_progress WHERE duel_id = d.id) AS progress,
                   (SELECT count(*) FROM live_duel_players WHERE duel_id = d.id) AS markers
              FROM duels d WHERE id = \(duel.id)::uuid
            """)[0]
        #expect(try row.string("state") == "finished" && row.bool("stamped"))
        #expect(try row.string("winner") == duel.players[0].id)
        // Ratings for both; progress only for the player who answered; no live marker left.
        #expect(try row.int("ratings") == 2 && row.int("progress") == 1 && row.int("markers") == 0)
        #expect(outbox.events.contains { $0.players == [duel.players[0].id] && $0.text.contains("first_game") })
        // The cache holds the finished state at its stored version.
        let stored = try connection.query("SELECT inputs FROM duels WHERE id = \(duel.id)::uuid")[0].int("inputs")
        #expect(lane.cache.latest(of: duel.id)?.version == stored)
    }
}
