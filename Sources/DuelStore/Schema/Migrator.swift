import Foundation

/// Brings a database to the schema of the `sql/` folder, or says how far it is from it.
///
/// The numbered files of `sql/migrations/` (table changes) are applied in order, each once, in a
/// transaction, recording its checksum. An applied file that has changed since is an error:
/// migrations are history, and a new change gets a new file (the one exception, a rewrite
/// listed in `superseded-checksums`: ``SupersededChecksums``). Then the functions and views of
/// `sql/functions/` and `sql/views/`, and `sql/grants.sql`, are applied again, all of them, in
/// one transaction (``DefinitionApplier``), so they are always what their files say.
public struct Migrator: Sendable {
    public struct Migration: Sendable, Equatable {
        public let version: Int
        public let name: String
        /// The file's text, whose checksum is recorded.
        public let sql: String
        /// What runs: the text with the definition files it includes (``MigrationFiles``).
        public let script: String

        public init(version: Int, name: String, sql: String, script: String? = nil) {
            self.version = version
            self.name = name
            self.sql = sql
            self.script = script ?? sql
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case changedAfterApplying(version: Int, name: String)
        case notCurrent(SchemaStatus)

        public var description: String {
            switch self {
            case .changedAfterApplying(let version, let name):
                "migration \(version) (\(name)) was changed after it was applied; add a new migration instead"
            case .notCurrent(let status): status.description
            }
        }
    }

    public let migrations: [Migration]
    /// The functions, views and grants applied after the migrations; nil leaves them alone (a
    /// migrator of table changes only, as tests of the migration mechanics use).
    public let definitions: SchemaDefinitions?
    public let superseded: SupersededChecksums
    /// Where a Citus coordinator puts each table (``CitusPlacement``); nil leaves them alone.
    public let placement: CitusPlacement?

    public init(migrations: [Migration], definitions: SchemaDefinitions? = nil,
                superseded: SupersededChecksums = SupersededChecksums(), placement: CitusPlacement? = nil) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.definitions = definitions
        self.superseded = superseded
        self.placement = placement
    }

    /// Reads the migrations of `directory` (`sql/migrations`), its `superseded-checksums`, and
    /// the definitions beside it (`sql/functions`, `sql/views`, `sql/grants.sql`).
    public init(directory: URL) throws {
        try self.init(
            migrations: MigrationFiles.read(directory),
            definitions: SchemaDefinitions(directory: directory.deletingLastPathComponent()),
            superseded: SupersededChecksums(file: directory.appendingPathComponent("superseded-checksums")),
            placement: CitusPlacement(sqlDirectory: directory.deletingLastPathComponent()))
    }

    /// How the database compares with these files. Reads only: a server that was given a
    /// database (and the least rights) checks with this, and never migrates it.
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
            guard let recorded = applied.removeValue(forKey: migration.version) else {
                status.missing.append(migration.name)
                continue
            }
            if try !isSame(migration, recorded: recorded, on: connection) { status.changed.append(migration.name) }
        }
        status.unknown = applied.keys.sorted()
        if let definitions {
            let comparison = try DefinitionLedger.compare(definitions, on: connection)
            status.definitionsNotApplied = comparison.notApplied
            status.undefinedObjects = comparison.undefined
            status.missingObjects = comparison.missing
            status.alteredObjects = comparison.altered
        }
        return status
    }

    /// Throws ``Failure/notCurrent(_:)`` unless every migration file is applied unchanged and
    /// the functions and views are the files'. Versions the database has beyond these files (a
    /// newer server migrated it) are allowed: migrations only add, so an older server still
    /// finds everything it uses.
    public func verify(on connection: PGConnection) throws -> SchemaStatus {
        let status = try status(on: connection)
        guard status.isCurrent else { throw Failure.notCurrent(status) }
        return status
    }

    /// The checksum recorded when applying: sha256 of the UTF-8 text, computed by the database.
    static func checksum(_ sql: String, on connection: PGConnection) throws -> String {
        try connection.query("SELECT encode(sha256(convert_to(\(sql), 'UTF8')), 'hex') AS sum")[0].string("sum")
    }

    /// Whether the database's record of `migration` is this text, or an earlier text this one
    /// superseded.
    private func isSame(_ migration: Migration, recorded: String, on connection: PGConnection) throws -> Bool {
        let current = try Self.checksum(migration.sql, on: connection)
        return recorded == current || superseded.accepts(version: migration.version, recorded: recorded, current: current)
    }

    /// Applies the pending migrations, then (on a Citus coordinator) places the tables, then
    /// every definition; returns the versions applied now.
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
            let existing = try connection.query(
                "SELECT checksum FROM schema_migrations WHERE version = \(migration.version)")
            if let row = existing.first {
                guard try isSame(migration, recorded: row.string("checksum"), on: connection) else {
                    throw Failure.changedAfterApplying(version: migration.version, name: migration.name)
                }
                continue
            }
            let checksum = try Self.checksum(migration.sql, on: connection)
            try connection.transaction { connection in
                try connection.execute(script: migration.script)
                try connection.query("""
                    INSERT INTO schema_migrations (version, name, checksum)
                    VALUES (\(migration.version), \(migration.name), \(checksum))
                    """)
            }
            applied.append(migration.version)
        }
        try placement?.apply(on: connection)
        if let definitions { try DefinitionApplier.apply(definitions, on: connection) }
        return applied
    }
}
