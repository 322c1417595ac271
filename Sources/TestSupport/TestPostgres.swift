import DuelStore
import Foundation
import Glibc

/// The Postgres server the store tests use: `DATABASE_URL` when set, otherwise a
/// throwaway embedded server under /tmp, started once per test process and
/// stopped when it exits. Tests never skip for want of Postgres: if none can be
/// had, they fail and say why.
public enum TestPostgres {
    /// Superuser conninfo of the server.
    public static let server: Result<String, Error> = {
        if let url = ProcessInfo.processInfo.environment["DATABASE_URL"], !url.isEmpty {
            return .success("dbname='\(url)'")
        }
        do {
            let root = URL(fileURLWithPath: "/tmp/quizduel-test-\(getpid())")
            let postgres = try EmbeddedPostgres(root: root)
            try postgres.start()
            embedded = postgres
            atexit {
                TestPostgres.embedded?.stop()
                try? FileManager.default.removeItem(atPath: "/tmp/quizduel-test-\(getpid())")
            }
            return .success(postgres.conninfo())
        } catch {
            return .failure(error)
        }
    }()

    nonisolated(unsafe) static var embedded: EmbeddedPostgres?

    /// Creates an empty database with a unique name and returns its conninfo.
    public static func emptyDatabase() throws -> String {
        let base = try server.get()
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let admin = try PGConnection(base)
        defer { admin.close() }
        try admin.execute(script: "CREATE DATABASE \(name)")
        return base + " dbname=\(name)"
    }

    /// A new database with the migrations applied and the seed banks loaded.
    public static func migratedDatabase(seed: Bool = true) throws -> String {
        let conninfo = try emptyDatabase()
        let connection = try PGConnection(conninfo)
        defer { connection.close() }
        try Migrator(directory: SQLFiles.migrations).apply(on: connection)
        if seed { try SeedBanks.loadIfEmpty(on: connection) }
        return conninfo
    }
}
