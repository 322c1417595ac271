import Foundation

/// Applies the numbered SQL files of `sql/migrations/` in order, each once, in a
/// transaction, recording its checksum. An applied file that has changed since is
/// an error: migrations are history, and a new change gets a new file.
public struct Migrator: Sendable {
    public struct Migration: Sendable, Equatable {
        public let version: Int
        public let name: String
        public let sql: String

        public init(version: Int, name: String, sql: String) {
            self.version = version
            self.name = name
            self.sql = sql
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case badFileName(String)
        case duplicateVersion(Int)
        case changedAfterApplying(version: Int, name: String)
        case noMigrations(String)
        case notCurrent(SchemaStatus)

        public var description: String {
            switch self {
            case .badFileName(let name): "migration file \(name) must be named NNN_description.sql"
            case .duplicateVersion(let version): "two migration files have version \(version)"
            case .changedAfterApplying(let version, let name):
                "migration \(version) (\(name)) was changed after it was applied; add a new migration instead"
            case .noMigrations(let directory): "no migrations found in \(directory)"
            case .notCurrent(let status): status.description
            }
        }
    }

    public let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// Reads `NNN_name.sql` files from `directory`.
    public init(directory: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }
        var migrations: [Migration] = []
        for name in names {
            guard let underscore = name.firstIndex(of: "_"), let version = Int(name[..<underscore]) else {
                throw Failure.badFileName(name)
            }
            guard !migrations.contains(where: { $0.version == version }) else { throw Failure.duplicateVersion(version) }
            let sql = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        guard !migrations.isEmpty else { throw Failure.noMigrations(directory.path) }
        self.init(migrations: migrations)
    }

    /// How the database's applied migrations compare with these files.
    public func status(on connection: PGConnection) throws -> SchemaStatus {
        let exists = try connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")[0]
            .bool("present")
        var applied: [Int: String] = [:]
        if exists {
            for row in try connection.query("SELECT version, checksum FROM schema_migrations") {
                applied[try row.int("version")] = try row.string("checksum")
            }
        }
        var status = SchemaStatus()
        for migration in migrations {
            guard let stored = applied.removeValue(forKey: migration.version) else {
                status.missing.append(migration.name)
                continue
            }
            if try stored != Self.checksum(migration.sql, on: connection) { status.changed.append(migration.name) }
        }
        status.unknown = applied.keys.sorted()
        return status
    }

    /// Throws ``Failure/notCurrent(_:)`` unless every migration file is applied unchanged.
    /// Versions the database has beyond these files (a newer server migrated it) are allowed:
    /// migrations only add, so an older server still finds everything it uses.
    public func verify(on connection: PGConnection) throws -> SchemaStatus {
        let status = try status(on: connection)
        guard status.isCurrent else { throw Failure.notCurrent(status) }
        return status
    }

    /// The checksum recorded when applying: sha256 of the UTF-8 text, computed by the database.
    static func checksum(_ sql: String, on connection: PGConnection) throws -> String {
        try connection.query("SELECT encode(sha256(convert_to(\(sql), 'UTF8')), 'hex') AS sum")[0].string("sum")
    }

    /// Applies the pending migrations; returns the versions applied now.
    ///
    /// An advisory lock makes concurrent server starts on one database take turns.
    @discardableResult
    public func apply(on connection: PGConnection) throws -> [Int] {
        try connection.execute(script: """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version    integer PRIMARY KEY,
                name       text NOT NULL,
                checksum   text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        try connection.query("SELECT pg_advisory_lock(727340001)")
        defer { _ = try? connection.query("SELECT pg_advisory_unlock(727340001)") }
        var applied: [Int] = []
        for migration in migrations {
            let checksum = try Self.checksum(migration.sql, on: connection)
            let existing = try connection.query(
                "SELECT checksum FROM schema_migrations WHERE version = \(migration.version)")
            if let row = existing.first {
                guard try row.string("checksum") == checksum else {
                    throw Failure.changedAfterApplying(version: migration.version, name: migration.name)
                }
                continue
            }
            try connection.transaction { connection in
                try connection.execute(script: migration.sql)
                try connection.query("""
                    INSERT INTO schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(checksum))
                    """)
            }
            applied.append(migration.version)
        }
        return applied
    }
}
