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

    @Test func aSupersededTextIsAcceptedOnlyForTheExactTextThatReplacedIt() throws {
        let connection = try PGConnection(try TestPostgres.emptyDatabase())
        defer { connection.close() }
        let (old, new) = ("CREATE TABLE a (x int); CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';",
                          "CREATE TABLE a (x int);")
        try Migrator(migrations: [.init(version: 1, name: "001_a.sql", sql: old)]).apply(on: connection)
        func sum(_ text: String) throws -> String {
            try connection.query("SELECT encode(sha256(convert_to(\(text), 'UTF8')), 'hex') AS s")[0].string("s")
        }
        let list = SupersededChecksums([.init(version: 1, old: try sum(old), current: try sum(new))])
        let rewritten = Migrator(migrations: [.init(version: 1, name: "001_a.sql", sql: new)], superseded: list)
        #expect(try rewritten.apply(on: connection).isEmpty)
        #expect(try rewritten.status(on: connection).isCurrent)
        // Any other text is still a changed migration, the list notwithstanding.
        let edited = Migrator(migrations: [.init(version: 1, name: "001_a.sql", sql: new + " ")], superseded: list)
        #expect(throws: Migrator.Failure.self) { try edited.apply(on: connection) }
        #expect(try edited.status(on: connection).changed == ["001_a.sql"])
    }

    @Test func theSupersededListIsReadStrictly() throws {
        let sum = String(repeating: "ab", count: 32)
        let list = try SupersededChecksums(parsing: "# comment\n\n017 \(sum)  \(sum)  # why\n",
                                           name: "superseded-checksums")
        #expect(list.entries == [.init(version: 17, old: sum, current: sum)])
        #expect(throws: SupersededChecksums.Failure.self) {
            try SupersededChecksums(parsing: "017 \(sum)\n", name: "superseded-checksums")
        }
        #expect(throws: SupersededChecksums.Failure.self) {
            try SupersededChecksums(parsing: "017 \(sum.uppercased()) \(sum)\n", name: "superseded-checksums")
        }
    }

    @Test func aMigrationIncludesTheDefinitionFilesItNeeds() throws {
        let migrations = try MigrationFiles.read(SQLFiles.migrations)
        let core = try #require(migrations.first { $0.version == 1 })
        // The checksum covers the migration's text; what runs holds the included function.
        #expect(core.sql.contains("\\ir ../functions/ops.choices_valid.sql"))
        #expect(!core.sql.contains("CREATE OR REPLACE FUNCTION"))
        #expect(core.script.contains("CREATE OR REPLACE FUNCTION ops.choices_valid(") && !core.script.contains("\\ir "))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "SELECT 1;\n\\set x 1\n".write(to: directory.appendingPathComponent("001_meta.sql"), atomically: true, encoding: .utf8)
        #expect(throws: MigrationFiles.Failure.self) { try MigrationFiles.read(directory) }
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
        let banks = try QuizRepository(connection).banks()
        #expect(banks.count >= 3)
        #expect(banks.allSatisfy { $0.questions >= 40 })
        #expect(try SeedBanks.loadIfEmpty(on: connection).isEmpty)
    }
}
