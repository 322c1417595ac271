import TestSupport
import DuelCore
import DuelStore
import Foundation

/// A migrated, seeded database with a pool of worker threads, and player helpers.
final class StoreFixture: Sendable {
    let conninfo: String
    let pool: DatabasePool

    init(workers: Int = 8, seed: Bool = true) throws {
        conninfo = try TestPostgres.migratedDatabase(seed: seed)
        pool = DatabasePool(conninfo: conninfo, size: workers)
    }

    deinit {
        pool.shutdown()
    }

    /// A connection of the test's own, for checks.
    func connect() throws -> PGConnection {
        try PGConnection(conninfo)
    }

    /// Creates `count` players in one statement (hashes are well-formed placeholders).
    func players(_ count: Int, prefix: String = "p") async throws -> [PlayerID] {
        try await pool.run { connection in
            try connection.query("""
                INSERT INTO players (username, password_hash)
                SELECT \(prefix) || '-' || g, '$argon2id$v=19$m=19456,t=2,p=1$placeholder'
                  FROM generate_series(1, \(count)) g
                RETURNING id::text AS id
                """).map { try $0.string("id") }
        }
    }

    static func nowMs() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000)
    }
}
