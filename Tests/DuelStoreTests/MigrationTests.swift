import TestSupport
import DuelStore
import Foundation
import Testing

@Suite struct MigrationTests {
    @Test func migrationsApplyToAnEmptyDatabaseAndASecondRunChangesNothing() throws {
        let connection = try PGConnection(try TestPostgres.emptyDatabase())
        defer { connection.close() }
        let migrator = try Migrator(directory: SQLFiles.migrations)
        let first = try migrator.apply(on: connection)
        #expect(first == migrator.migrations.map(\.version))
        #expect(first.first == 1)
        let schema = try connection.query("""
            SELECT string_agg(table_name, ',' ORDER BY table_name) AS t FROM information_schema.tables
             WHERE table_schema IN ('public', 'ops')
            """)[0].string("t")
        #expect(try migrator.apply(on: connection).isEmpty)
        let again = try connection.query("""
            SELECT string_agg(table_name, ',' ORDER BY table_name) AS t FROM information_schema.tables
             WHERE table_schema IN ('public', 'ops')
            """)[0].string("t")
        #expect(schema == again)
        #expect(schema.contains("duel_events"))
        #expect(try connection.query("SELECT count(*) AS n FROM schema_migrations")[0].int("n") == first.count)
    }

    @Test func aChangedAppliedMigrationIsAClearError() throws {
        let connection = try PGConnection(try TestPostgres.emptyDatabase())
        defer { connection.close() }
        let original = Migrator(migrations: [.init(version: 1, name: "001_a.sql", sql: "CREATE TABLE a (x int)")])
        try original.apply(on: connection)
        let edited = Migrator(migrations: [.init(version: 1, name: "001_a.sql", sql: "CREATE TABLE a (x bigint)")])
        #expect(throws: Migrator.Failure.self) { try edited.apply(on: connection) }
        #expect(throws: Migrator.Failure.self) { try edited.apply(on: connection) }
    }

    @Test func aFailingMigrationLeavesNoTrace() throws {
        let connection = try PGConnection(try TestPostgres.emptyDatabase())
        defer { connection.close() }
        let broken = Migrator(migrations: [
            .init(version: 1, name: "001_ok.sql", sql: "CREATE TABLE ok (x int)"),
            .init(version: 2, name: "002_bad.sql", sql: "CREATE TABLE half (x int); SELECT nonsense FROM nowhere"),
        ])
        #expect(throws: PGError.self) { try broken.apply(on: connection) }
        #expect(try connection.query("SELECT to_regclass('half') IS NULL AS gone")[0].bool("gone"))
        #expect(try connection.query("SELECT version FROM schema_migrations").map { try $0.int("version") } == [1])
    }

    @Test func seedBanksLoadOnceWithFortyQuestionsEach() throws {
        let connection = try PGConnection(try TestPostgres.migratedDatabase(seed: true))
        defer { connection.close() }
        let banks = try connection.banks()
        #expect(banks.count >= 3)
        #expect(banks.allSatisfy { $0.questions >= 40 })
        #expect(try SeedBanks.loadIfEmpty(on: connection).isEmpty)
    }
}
