import TestSupport
@testable import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// What a lane round's update of a duel's row costs in WAL (issue 25, migration 026): the start
/// state lives in `duel_starts`, so a new version of the row no longer carries it.
@Suite struct DuelRowWALTests {
    let batches = LaneBatchTests()

    /// The WAL bytes of one round that moves `duel` to `phase`, in a transaction of its own.
    func walBytes(_ connection: PGConnection, _ duel: Duel, _ phase: DuelPhase, seq: Int) throws -> Int {
        var writes = DuelWrites()
        let row = DuelStep.Row(phase: phase, lastSeq: seq, nextDeadlineMs: 5_000, questionsOpened: 1, result: nil)
        writes.rows.append((duel.id, row, seq))
        let before = try connection.query("SELECT pg_current_wal_insert_lsn()::text AS at")[0].string("at")
        try connection.query(writes.statement(now: "now", payloads: []))
        return try connection.query("""
            SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), \(before)::pg_lsn)::int AS bytes
            """)[0].int("bytes")
    }

    /// Postgres logs a new row version less the bytes it shares with the old one at either end; the
    /// start state (about 1 KB) sat between the phase and the counters, so a round that changed a
    /// duel's phase logged it again: about 1,550 bytes a round's row and commit. The least of
    /// several rounds is taken, so that a page's first image after a checkpoint does not count.
    @Test func aPhaseChangeDoesNotLogTheBaseStateAgain() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duel = try #require(try await batches.duels(fixture, 1).first)
        let connection = try fixture.connect()
        defer { connection.close() }
        let stored = try connection.query("""
            SELECT octet_length(base_state::text) AS size FROM duel_starts WHERE duel_id = \(duel.id)::uuid
            """)[0].int("size")
        // The premise: a base state larger than what the update may log.
        #expect(stored > 800)
        var least = Int.max
        for round in 0..<4 {
            let bytes = try walBytes(connection, duel, round % 2 == 0 ? .reveal : .question, seq: 10 + round)
            least = min(least, bytes)
        }
        #expect(least < 500, "a row update and its commit logged \(least) bytes")
        // The start state is still there, whole, and the duel rebuilds from it.
        let after = try connection.query("""
            SELECT octet_length(base_state::text) AS size FROM duel_starts WHERE duel_id = \(duel.id)::uuid
            """)[0].int("size")
        #expect(after == stored)
        let rebuilt = try DuelRepository(connection).rebuildDuels([duel.id])
        #expect(rebuilt[duel.id]?.duel.questions.map(\.id) == duel.questions.map(\.id))
        #expect(rebuilt[duel.id]?.duel.players.map(\.id) == duel.players.map(\.id))
        // A new duel's row holds no start state.
        #expect(try connection.query("SELECT base_state IS NULL AS empty FROM duels WHERE id = \(duel.id)::uuid")[0].bool("empty"))
    }

    /// A duel created before migration 026 (or by an older server since) keeps its start state in
    /// its row, with no `duel_starts` row: it still rebuilds, and its ranked answers still show
    /// the rating the game began with.
    @Test func aDuelWhoseStartIsInItsRowStillRebuilds() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duel = try #require(try await batches.duels(fixture, 1).first)
        let connection = try fixture.connect()
        defer { connection.close() }
        try connection.query("""
            UPDATE duels d SET base_state = s.base_state FROM duel_starts s
             WHERE s.duel_id = d.id AND d.id = \(duel.id)::uuid
            """)
        try connection.query("DELETE FROM duel_starts WHERE duel_id = \(duel.id)::uuid")
        let rebuilt = try DuelRepository(connection).rebuildDuels([duel.id])
        #expect(rebuilt[duel.id]?.duel.questions.map(\.id) == duel.questions.map(\.id))
        #expect(rebuilt[duel.id]?.duel.players.map(\.id) == duel.players.map(\.id))
        let question = try #require(duel.questions.first)
        try connection.query("""
            INSERT INTO duel_answers (duel_id, question_index, player_id, choice, correct, points, elapsed_ms, answered_at)
            VALUES (\(duel.id)::uuid, 0, \(duel.players[0].id)::uuid, 0, false, 0, 1000, now())
            """)
        let rows = try connection.query("""
            SELECT rating_before::text AS rating FROM ops.question_answers
             WHERE duel_id = \(duel.id)::uuid AND question_id = \(question.id)
            """)
        #expect(rows.count == 1)
        #expect(rows.first?["rating"] != nil)
    }
}
