import Foundation

/// Places the tables on a Citus cluster (issue 24): `sql/citus/distribute.sql`, run by
/// ``Migrator/apply(on:)`` after the migrations and before the definitions, only where the
/// operator created the `citus` extension. The same migrations serve plain Postgres, which never
/// runs this file. The file skips itself once `duels` is distributed, so every migrate may run it.
public struct CitusPlacement: Sendable {
    /// The text of `distribute.sql`.
    public let script: String

    public init(script: String) {
        self.script = script
    }

    /// Reads `sql/citus/distribute.sql` beside the migrations; nil when the file is absent.
    public init?(sqlDirectory: URL) {
        let file = sqlDirectory.appendingPathComponent("citus").appendingPathComponent("distribute.sql")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        self.init(script: text)
    }

    /// Whether the database is a Citus coordinator: the extension exists in it.
    public static func isCitus(_ connection: PGConnection) throws -> Bool {
        try !connection.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'").isEmpty
    }

    /// Whether `duels` is a distributed table here (false on plain Postgres).
    public static func isPlaced(_ connection: PGConnection) throws -> Bool {
        guard try isCitus(connection) else { return false }
        return try !connection.query("""
            SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'duels'::regclass
            """).isEmpty
    }

    /// Runs the placement in one transaction when the database is a Citus coordinator; returns
    /// whether it ran.
    @discardableResult
    public func apply(on connection: PGConnection) throws -> Bool {
        guard try Self.isCitus(connection) else { return false }
        try connection.transaction { try $0.execute(script: script) }
        return true
    }
}
