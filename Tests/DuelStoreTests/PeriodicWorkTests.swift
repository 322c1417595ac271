import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// The health job's statements, run by every instance once a second, read what changed, not what
/// has piled up (issue 25, migration 027): among many sessions and many players' quizzes, the
/// purge of expired sessions and the metrics' queue lengths scan neither table.
@Suite struct PeriodicWorkTests {
    /// Whole-table scans of `tables` by what `body` runs: the difference `body` makes to the
    /// transaction's own statistics (which may also hold the connection's counts not yet flushed,
    /// so they are read before it too).
    func sequentialScans(_ connection: PGConnection, of tables: [String], _ body: () throws -> Void) throws -> [String: Int] {
        func scans() throws -> [String: Int] {
            var found: [String: Int] = [:]
            for row in try connection.query("""
                SELECT relname, seq_scan FROM pg_stat_xact_user_tables WHERE relname = ANY(\(PGArray(tables))::text[])
                """) {
                found[try row.string("relname")] = try row.int("seq_scan")
            }
            return found
        }
        return try connection.transaction(retries: 0) { _ in
            let before = try scans()
            try body()
            return try scans().reduce(into: [:]) { $0[$1.key] = $1.value - before[$1.key, default: 0] }
        }
    }

    @Test func theHealthJobsPurgeAndQueueLengthsReadNoWholeTable() async throws {
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        // 20,000 players, each signed in (unexpired) and each the author of a private quiz.
        try connection.query("""
            WITH p AS (
                INSERT INTO players (username, password_hash)
                SELECT 'many-' || g, '$argon2id$v=19$m=19456,t=2,p=1$placeholder' FROM generate_series(1, 20000) g
                RETURNING id, username),
            s AS (
                INSERT INTO sessions (token_hash, player_id, expires_at)
                SELECT sha256(convert_to(username, 'UTF8')), id, now() + interval '30 days' FROM p
                RETURNING 1)
            INSERT INTO banks (slug, title, owner_id, matchmaking)
            SELECT 'quiz-of-' || username, 'A quiz', id, false FROM p
            """)
        try connection.query("ANALYZE sessions")
        try connection.query("ANALYZE banks")
        // A retired operator's bank is still listed (with nobody waiting), as it always was.
        try connection.query("""
            INSERT INTO banks (slug, title, retired_at) VALUES ('retired-bank', 'Retired', now())
            """)
        // Nobody waits yet: every operator's bank and the players' quizzes at 0.
        let empty = try QueueRepository(connection).queueLengths()
        #expect(empty[QueueRepository.playerQuizzesLabel] == 0 && empty["retired-bank"] == 0)
        #expect(empty.values.allSatisfy { $0 == 0 })
        // One waiting player in an operator's bank, one in a player's quiz.
        let waiting = try await fixture.players(2, prefix: "waiting")
        try connection.query("""
            INSERT INTO match_queue (player_id, bank_id, rating)
            VALUES (\(waiting[0])::uuid, (SELECT id FROM banks WHERE slug = 'world-capitals'), 1500),
                   (\(waiting[1])::uuid, (SELECT id FROM banks WHERE slug = 'quiz-of-many-7'), 1500)
            """)
        var lengths: [String: Int] = [:]
        var purged = -1
        let scans = try sequentialScans(connection, of: ["sessions", "banks"]) {
            purged = try PlayerRepository(connection).endExpiredSessions()
            lengths = try QueueRepository(connection).queueLengths()
        }
        #expect(scans["sessions", default: 0] == 0, "the purge scanned every session")
        #expect(scans["banks", default: 0] == 0, "the queue lengths scanned every bank")
        #expect(purged == 0)
        // Still the same figures: every operator's bank by slug, the players' quizzes together.
        #expect(lengths["world-capitals"] == 1)
        #expect(lengths[QueueRepository.playerQuizzesLabel] == 1)
        #expect(lengths["retired-bank"] == 0)
        let operatorBanks = try connection.query("SELECT count(*) AS n FROM banks WHERE owner_id IS NULL")[0].int("n")
        #expect(lengths.count == operatorBanks + 1)
        #expect(lengths.values.reduce(0, +) == 2)
        // An expired session still goes.
        try connection.query("UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_hash = sha256(convert_to('many-1', 'UTF8'))")
        #expect(try PlayerRepository(connection).endExpiredSessions() == 1)
    }
}
