/// Applies ``SchemaDefinitions`` to a database: every function file, every view file, then the
/// grants, in one transaction, after the pending migrations (``Migrator/apply(on:)``).
///
/// Applying is re-creating with CREATE OR REPLACE, so applying twice changes nothing, and what
/// the files say is what runs. It is also where the files are held to their rules, against the
/// catalog rather than by reading SQL: each file must create or replace its own object and no
/// other, and every function and view of schemas public and ops must come from a file (an
/// object left by an old migration, or made by hand, is an error naming it: drop it in a
/// migration, or give it a file).
enum DefinitionApplier {
    enum Failure: Error, CustomStringConvertible {
        case failed(path: String, error: PGError)
        case definesNothing(path: String, object: String)
        case definesOthers(path: String, objects: [String])
        case invalidBody(function: String, error: PGError)
        case noFile([String])

        var description: String {
            switch self {
            case .failed(let path, let error): "sql/\(path): \(error)"
            case .definesNothing(let path, let object): "sql/\(path) does not create or replace \(object)"
            case .definesOthers(let path, let objects):
                "sql/\(path) defines \(objects.joined(separator: ", ")): a file defines only the object it is named after"
            case .invalidBody(let function, let error): "function \(function): \(error)"
            case .noFile(let objects):
                "no file in sql/functions or sql/views defines \(objects.joined(separator: ", ")): "
                    + "give it a file, or drop it in a new migration"
            }
        }
    }

    static func apply(_ definitions: SchemaDefinitions, on connection: PGConnection) throws {
        try connection.transaction { connection in
            // Bodies are checked once every function and view exists (validate, below): a
            // function may call one of a later file, or read a view.
            try connection.execute(script: "SET LOCAL check_function_bodies = off")
            var catalog = try DefinitionCatalog.objects(on: connection)
            var defined = Set<String>()
            for file in definitions.functions {
                try run(file, on: connection)
                catalog = try check(file, kind: "function", before: catalog, on: connection, defined: &defined)
            }
            try applyViews(definitions.views, on: connection, catalog: &catalog, defined: &defined)
            let strays = catalog.filter { !defined.contains($0.kind + " " + $0.name) }
            guard strays.isEmpty else { throw Failure.noFile(strays.map { "\($0.kind) \($0.name)" }) }
            try connection.execute(script: "SET LOCAL check_function_bodies = on")
            try validateBodies(on: connection)
            for file in definitions.grants { try run(file, on: connection) }
            try DefinitionLedger.record(definitions, on: connection)
        }
    }

    private static func run(_ file: SchemaDefinitions.File, on connection: PGConnection) throws {
        do {
            try connection.execute(script: file.sql)
        } catch {
            throw Failure.failed(path: file.path, error: error)
        }
    }

    /// The objects of `kind` the file created or replaced (their catalog rows are new) must be
    /// its own, and there must be one. Returns the catalog after the file.
    private static func check(
        _ file: SchemaDefinitions.File, kind: String, before: [DefinitionCatalog.Object],
        on connection: PGConnection, defined: inout Set<String>
    ) throws -> [DefinitionCatalog.Object] {
        let after = try DefinitionCatalog.objects(on: connection)
        let changed = after.filter { !before.contains($0) }
        let others = changed.filter { $0.object != file.object }
        guard others.isEmpty else { throw Failure.definesOthers(path: file.path, objects: others.map(\.name)) }
        guard changed.contains(where: { $0.kind == kind }) else {
            throw Failure.definesNothing(path: file.path, object: "\(kind) \(file.object)")
        }
        defined.formUnion(changed.map { $0.kind + " " + $0.name })
        return after
    }

    /// Views in dependency order, found by trying: a view whose file reads a view not created yet
    /// fails with undefined_table, is undone (its savepoint) and tried again after the others.
    /// CREATE OR REPLACE keeps a view's grants and the views built on it; a change it cannot make
    /// (a column renamed, retyped or removed) needs a DROP VIEW in a new migration.
    private static func applyViews(
        _ files: [SchemaDefinitions.File], on connection: PGConnection,
        catalog: inout [DefinitionCatalog.Object], defined: inout Set<String>
    ) throws {
        var pending = files
        while !pending.isEmpty {
            var postponed: [SchemaDefinitions.File] = []
            var firstFailure: Failure?
            for file in pending {
                try connection.execute(script: "SAVEPOINT definition")
                do {
                    try connection.execute(script: file.sql)
                } catch where error.sqlState == "42P01" {
                    try connection.execute(script: "ROLLBACK TO SAVEPOINT definition; RELEASE SAVEPOINT definition")
                    postponed.append(file)
                    firstFailure = firstFailure ?? .failed(path: file.path, error: error)
                    continue
                } catch {
                    throw Failure.failed(path: file.path, error: error)
                }
                try connection.execute(script: "RELEASE SAVEPOINT definition")
                catalog = try check(file, kind: "view", before: catalog, on: connection, defined: &defined)
            }
            if postponed.count == pending.count, let firstFailure { throw firstFailure }
            pending = postponed
        }
    }

    /// Checks every function body now that everything it may use exists, as CREATE FUNCTION
    /// would have with check_function_bodies on: each language's validator, by hand.
    private static func validateBodies(on connection: PGConnection) throws {
        let functions = try connection.query("""
            SELECT p.oid::text AS oid, p.oid::regprocedure::text AS name, l.lanvalidator::regproc::text AS validator
              FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
             WHERE n.nspname IN (\(unsafeRaw: DefinitionCatalog.schemaList)) AND l.lanvalidator <> 0
               AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
            """)
        for function in functions {
            let (name, validator, oid) = (try function.string("name"), try function.string("validator"),
                                          try function.string("oid"))
            do {
                try connection.query("SELECT \(unsafeRaw: validator)(\(oid)::oid)")
            } catch {
                throw Failure.invalidBody(function: name, error: error)
            }
        }
    }
}
