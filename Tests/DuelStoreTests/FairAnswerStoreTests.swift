import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Issue 26 in the store: a lag is logged as an input of its own, an answer that waits for the
/// settle is logged and shows nothing, and a rebuild from the log gives the live engine's state,
/// on the locking path and on the cached one.
@Suite struct FairAnswerStoreTests {
    let batches = LaneBatchTests()

    @Test func lagsAndWaitingAnswersAreLoggedAndRebuildTheLiveState() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duel = try await batches.duels(fixture, 1)[0]
        let connection = try fixture.connect()
        defer { connection.close() }
        let repository = DuelRepository(connection)
        var lane = DuelLaneState()
        let far = duel.players[1].id
        let lag = repository.applyInputs([DuelInputItem(duelID: duel.id, input: .lag(player: far, lagMs: 200, atMs: 1_100))],
                                         lane: &lane)
        #expect(try lag[0].get()?.events.isEmpty == true)
        // The near player's right answer waits: no event, no reply yet.
        let near = repository.applyInputs([batches.answer(duel, seat: 0, correct: true, at: 1_500)], lane: &lane)
        #expect(try near[0].get()?.outcome == .settling)
        #expect(try near[0].get()?.events.isEmpty == true)
        #expect(try near[0].get()?.nextDeadlineMs == 1_700)
        // The far player answered 60 ms sooner; it arrives 140 ms later, on the cached path, and wins.
        let won = repository.applyCachedRound([batches.answer(duel, seat: 1, correct: true, at: 1_640)], lane: &lane,
                                              outbox: Outbox())
        let update = try #require(try won?[0].get())
        #expect(update.outcome == .answered(correct: true, points: 200))
        #expect(update.events.map(\.kind).prefix(2) == [.answered, .reveal])
        let logged = try connection.query("""
            SELECT kind || ':' || coalesce(lag_ms::text, '-') AS input FROM duel_inputs
             WHERE duel_id = \(duel.id)::uuid ORDER BY n
            """).map { try $0.string("input") }
        #expect(logged == ["lag:200", "answer:-", "answer:-"])
        // One answer row: the winner's, credited 200 ms before it arrived.
        let stored = try connection.query("""
            SELECT player_id::text AS player, elapsed_ms FROM duel_answers WHERE duel_id = \(duel.id)::uuid
            """)
        #expect(stored.count == 1)
        #expect(try stored.first?.string("player") == far)
        let rebuilt = try repository.rebuildDuels([duel.id])[duel.id]
        #expect(rebuilt?.version == 3 && rebuilt?.duel == lane.cache.latest(of: duel.id)?.duel)
        #expect(rebuilt?.duel.players[1].lagMs == 200)
    }

    /// Migration 024 took the input log's CHECKs off the lane's write path; the rule stays the
    /// engine's, and ops.duel_anomalies names a row that breaks it.
    @Test func aLagInputWithoutItsValueIsNamedAnAnomaly() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duel = try await batches.duels(fixture, 1)[0]
        let connection = try fixture.connect()
        defer { connection.close() }
        try connection.query("""
            INSERT INTO duel_inputs (duel_id, n, kind, player_id, at_ms)
            VALUES (\(duel.id)::uuid, 99, 'lag', \(duel.players[0].id)::uuid, 5)
            """)
        let rules = try connection.query("SELECT key, rule FROM ops.duel_anomalies").map { "\(try $0.string("key")) \(try $0.string("rule"))" }
        #expect(rules == ["\(duel.id)/99 lag_iff_lag_input"])
    }
}
