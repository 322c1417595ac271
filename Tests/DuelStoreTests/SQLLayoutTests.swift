import TestSupport
@testable import DuelStore
import Foundation
import Testing

/// Functions and views in files of their own (`sql/functions`, `sql/views`, `sql/grants.sql`),
/// re-applied on every migrate and checked against the running schema; databases migrated from
/// the texts before that move (Tests/Fixtures/migrations-before-issue-22) are accepted and end
/// the same as a fresh one.
@Suite struct SQLLayoutTests {
    /// Migrations 001-017 as they were before their functions and views moved out.
    static let oldTexts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/migrations-before-issue-22")

    /// Everything a schema is made of, by object: functions and views (definition and grants),
    /// tables (columns, constraints, indexes, triggers, grants) and default privileges. The
    /// migrator's own bookkeeping is left out.
    static func schema(of connection: PGConnection) throws -> [String: String] {
        let rows = try connection.query("""
            SELECT 'function ' || p.oid::regprocedure::text AS object,
                   pg_get_functiondef(p.oid) || E'\\nacl ' || coalesce(p.proacl::text, '') AS definition
              FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname IN ('public', 'ops') AND p.prokind <> 'a'
            UNION ALL
            SELECT 'view ' || c.oid::regclass::text, pg_get_viewdef(c.oid) || E'\\nacl ' || coalesce(c.relacl::text, '')
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname IN ('public', 'ops') AND c.relkind = 'v'
            UNION ALL
            SELECT 'table ' || c.oid::regclass::text,
                   (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                                      || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                                      || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)
                      FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                     WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
                   || E'\\nconstraints ' || coalesce((SELECT string_agg(k.conname || ' ' || pg_get_constraintdef(k.oid), '; '
                                                                        ORDER BY k.conname)
                                                        FROM pg_constraint k WHERE k.conrelid = c.oid), '')
                   || E'\\nindexes ' || coalesce((SELECT string_agg(pg_get_indexdef(i.indexrelid), '; '
                                                                    ORDER BY pg_get_indexdef(i.indexrelid))
                                                    FROM pg_index i WHERE i.indrelid = c.oid), '')
                   || E'\\ntriggers ' || coalesce((SELECT string_agg(pg_get_triggerdef(t.oid), '; ' ORDER BY t.tgname)
                                                     FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal), '')
                   || E'\\nacl ' || coalesce(c.relacl::text, '')
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname IN ('public', 'ops') AND c.relkind = 'r'
               AND c.relname NOT IN ('schema_migrations', 'schema_definitions')
            UNION ALL
            SELECT 'default privileges ' || a.defaclobjtype::text || ' ' || coalesce(a.defaclnamespace::regnamespace::text, '-'),
                   a.defaclacl::text
              FROM pg_default_acl a
            """)
        return try Dictionary(uniqueKeysWithValues: rows.map { (try $0.string("object"), try $0.string("definition")) })
    }

    /// The objects whose definitions differ, by name.
    static func differences(_ a: [String: String], _ b: [String: String]) -> [String] {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
    }

    static func checksum(_ text: String, on connection: PGConnection) throws -> String {
        try connection.query("SELECT encode(sha256(convert_to(\(text), 'UTF8')), 'hex') AS sum")[0].string("sum")
    }

    /// A database migrated with the old texts, as servers before the move migrated it, seeded
    /// through the old operator functions.
    static func migratedWithOldTexts() throws -> PGConnection {
        let connection = try PGConnection(try TestPostgres.emptyDatabase())
        try Migrator(migrations: MigrationFiles.read(oldTexts)).apply(on: connection)
        try SeedBanks.loadIfEmpty(on: connection)
        return connection
    }

    @Test func aDatabaseMigratedFromTheOldTextsIsAcceptedAndEndsAsAFreshOne() throws {
        let fresh = try PGConnection(try TestPostgres.migratedDatabase(seed: true))
        defer { fresh.close() }
        let old = try Self.migratedWithOldTexts()
        defer { old.close() }
        let migrator = try Migrator(directory: SQLFiles.migrations)
        // What the old texts recorded is what the superseded list accepts.
        let recorded = try old.query("SELECT version, checksum FROM schema_migrations ORDER BY version")
        for entry in migrator.superseded.entries {
            #expect(try recorded.first { try $0.int("version") == entry.version }?.string("checksum") == entry.old)
        }
        #expect(try !migrator.status(on: old).isCurrent)
        // The old texts end at 017: every later migration applies (018 first, which the move added).
        #expect(try migrator.apply(on: old) == migrator.migrations.map(\.version).filter { $0 > 17 })
        let status = try migrator.verify(on: old)
        #expect(status.changed.isEmpty && status.definitionsCurrent, "\(status)")
        #expect(Self.differences(try Self.schema(of: old), try Self.schema(of: fresh)).isEmpty)
        #expect(try old.query("SELECT count(*) AS n FROM questions")[0].int("n") >= 120)
        // The recorded checksums stay the old texts': they are what ran.
        #expect(try old.query("SELECT checksum FROM schema_migrations WHERE version = 1")[0].string("checksum")
            == migrator.superseded.entries.first { $0.version == 1 }?.old)
    }

    @Test func withoutTheSupersededListTheOldTextsAreChangedMigrations() throws {
        let old = try Self.migratedWithOldTexts()
        defer { old.close() }
        let full = try Migrator(directory: SQLFiles.migrations)
        let strict = Migrator(migrations: full.migrations, definitions: full.definitions)
        #expect(throws: Migrator.Failure.self) { try strict.apply(on: old) }
        let rewritten = full.superseded.entries.map(\.version)
        #expect(try strict.status(on: old).changed == full.migrations.filter { rewritten.contains($0.version) }.map(\.name))
        #expect(!rewritten.isEmpty)
    }

    @Test func theSupersededListNamesTheOldTextsAndTheFilesAsTheyAre() throws {
        let connection = try PGConnection(try TestPostgres.emptyDatabase())
        defer { connection.close() }
        let migrator = try Migrator(directory: SQLFiles.migrations)
        let old = try MigrationFiles.read(Self.oldTexts)
        for migration in old {
            let new = try #require(migrator.migrations.first { $0.version == migration.version })
            let (oldSum, newSum) = (try Self.checksum(migration.sql, on: connection), try Self.checksum(new.sql, on: connection))
            let entries = migrator.superseded.entries.filter { $0.version == migration.version }
            if oldSum == newSum {
                #expect(entries.isEmpty, "\(new.name) is unchanged and needs no entry")
            } else {
                #expect(entries == [.init(version: migration.version, old: oldSum, current: newSum)], "\(new.name)")
            }
        }
    }

    /// From every version the old texts reached, the new files bring the database to the fresh
    /// one's schema (the DROPs kept in the migrations are what makes each step possible).
    @Test func everyOldVersionUpgradesToTheFreshSchema() throws {
        let fresh = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        let expected = try Self.schema(of: fresh)
        fresh.close()
        let admin = try PGConnection(try TestPostgres.server.get())
        defer { admin.close() }
        let template = try TestPostgres.emptyDatabase()
        let templateName = String(template.split(separator: "=").last!)
        let migrator = try Migrator(directory: SQLFiles.migrations)
        let old = try MigrationFiles.read(Self.oldTexts)
        for version in 1...old.count {
            let step = try PGConnection(template)
            try Migrator(migrations: Array(old.prefix(version))).apply(on: step)
            step.close()
            let copy = "\(templateName)_\(version)"
            try Self.copy(templateName, to: copy, on: admin)
            let upgraded = try PGConnection(template.replacingOccurrences(of: "dbname=\(templateName)", with: "dbname=\(copy)"))
            defer { upgraded.close() }
            try migrator.apply(on: upgraded)
            #expect(Self.differences(try Self.schema(of: upgraded), expected) == [], "from version \(version)")
        }
    }

    /// CREATE DATABASE ... TEMPLATE, retried while something (autovacuum) still uses the template.
    static func copy(_ template: String, to name: String, on admin: PGConnection) throws {
        var attempts = 0
        while true {
            do {
                try admin.execute(script: "CREATE DATABASE \(name) TEMPLATE \(template)")
                return
            } catch {
                attempts += 1
                guard error.sqlState == "55006", attempts < 50 else { throw error }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    @Test func applyingTwiceChangesNothing() throws {
        let connection = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        defer { connection.close() }
        let ledger: SQLQuery = "SELECT string_agg(kind || name || sha256 || applied_at, ',' ORDER BY kind, name) AS l FROM schema_definitions"
        let before = (try Self.schema(of: connection), try connection.query(ledger)[0].string("l"))
        #expect(try Migrator(directory: SQLFiles.migrations).apply(on: connection).isEmpty)
        #expect(Self.differences(try Self.schema(of: connection), before.0).isEmpty)
        #expect(try connection.query(ledger)[0].string("l") == before.1)
    }

    @Test func statusNamesWhatDiffersFromTheFilesAndMigrateMendsIt() throws {
        let connection = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        defer { connection.close() }
        let migrator = try Migrator(directory: SQLFiles.migrations)
        #expect(try migrator.status(on: connection).isCurrent)
        try connection.execute(script: """
            CREATE FUNCTION ops.stray() RETURNS int LANGUAGE sql AS 'SELECT 1';
            CREATE OR REPLACE FUNCTION ops.bank_id(p_slug text) RETURNS integer LANGUAGE sql STABLE AS 'SELECT 1';
            DROP VIEW ops.rooms;
            """)
        let status = try migrator.status(on: connection)
        #expect(status.undefinedObjects == ["function ops.stray()"])
        #expect(status.alteredObjects == ["function ops.bank_id(text)"])
        #expect(status.missingObjects == ["view ops.rooms"])
        #expect(!status.isCurrent)
        #expect(status.description.contains("ops.stray()") && status.description.contains("duel-server migrate"))
        // A function no file defines is refused by name, and nothing is applied.
        let refusal = #expect(throws: DefinitionApplier.Failure.self) { try migrator.apply(on: connection) }
        #expect(refusal?.description.contains("function ops.stray()") == true)
        #expect(try connection.query("SELECT to_regclass('ops.rooms') IS NULL AS gone")[0].bool("gone"))
        try connection.execute(script: "DROP FUNCTION ops.stray()")
        try migrator.apply(on: connection)
        #expect(try migrator.verify(on: connection).isCurrent)
        #expect(try connection.query("""
            SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
             WHERE p.oid = 'ops.bank_id(text)'::regprocedure
            """)[0].string("lanname") == "plpgsql")
    }

    @Test func statusNamesDefinitionFilesNotApplied() throws {
        let connection = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        defer { connection.close() }
        let migrator = try Migrator(directory: SQLFiles.migrations)
        let files = try #require(migrator.definitions).files
        var edited = files.map { file in
            file.path == "functions/ops.bank_id.sql"
                ? SchemaDefinitions.File(kind: file.kind, path: file.path, object: file.object, sql: file.sql + "\n-- edited\n")
                : file
        }
        edited.append(.init(kind: .function, path: "functions/ops.added.sql", object: "ops.added",
                            sql: "CREATE OR REPLACE FUNCTION ops.added() RETURNS int LANGUAGE sql AS 'SELECT 2';"))
        edited.removeAll { $0.path == "views/ops.rooms.sql" }
        let newer = Migrator(migrations: migrator.migrations, definitions: SchemaDefinitions(files: edited),
                             superseded: migrator.superseded)
        let status = try newer.status(on: connection)
        #expect(status.definitionsNotApplied == ["functions/ops.added.sql", "functions/ops.bank_id.sql", "views/ops.rooms.sql (removed)"])
        #expect(status.missing.isEmpty && status.changed.isEmpty && !status.isCurrent)
        // Without a file, ops.rooms cannot stay: the files are the whole set (its DROP belongs in a migration).
        #expect(throws: DefinitionApplier.Failure.self) { try newer.apply(on: connection) }
    }

    @Test func aFileDefinesItsOwnObjectAndNoOther() throws {
        let connection = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        defer { connection.close() }
        let migrator = try Migrator(directory: SQLFiles.migrations)
        let files = try #require(migrator.definitions).files
        func applying(_ extra: SchemaDefinitions.File) throws -> String {
            let definitions = SchemaDefinitions(files: files + [extra])
            do {
                try Migrator(migrations: migrator.migrations, definitions: definitions, superseded: migrator.superseded)
                    .apply(on: connection)
                return "applied"
            } catch {
                return "\(error)"
            }
        }
        let other = try applying(.init(kind: .function, path: "functions/ops.one.sql", object: "ops.one",
                                       sql: "CREATE OR REPLACE FUNCTION ops.two() RETURNS int LANGUAGE sql AS 'SELECT 2';"))
        #expect(other.contains("functions/ops.one.sql defines ops.two()"), "\(other)")
        let nothing = try applying(.init(kind: .view, path: "views/ops.empty.sql", object: "ops.empty", sql: "-- nothing"))
        #expect(nothing.contains("views/ops.empty.sql does not create or replace view ops.empty"), "\(nothing)")
        let broken = try applying(.init(kind: .function, path: "functions/ops.broken.sql", object: "ops.broken", sql: """
            CREATE OR REPLACE FUNCTION ops.broken() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1 +; END $$;
            """))
        #expect(broken.contains("ops.broken()"), "\(broken)")
        // Each attempt was one transaction: nothing of it stayed.
        #expect(try connection.query("SELECT count(*) AS n FROM pg_proc WHERE proname IN ('two', 'broken')")[0].int("n") == 0)
    }
}
