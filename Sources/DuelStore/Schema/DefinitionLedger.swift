/// The `schema_definitions` table: what the last migrate applied, so that a server which only
/// verifies (it never migrates a database it was given) can tell whether the running schema is
/// the one its files define, without applying anything.
///
/// One row per definition file (sha256 of its text, as migrations' checksums are) and one per
/// function and view of schemas public and ops (sha256 of its definition as Postgres prints
/// it). Comparing tells files edited since the last migrate, objects no file defines, objects
/// gone, and objects changed by hand since.
enum DefinitionLedger {
    /// How the database compares with the definition files; empty lists when it matches.
    struct Comparison: Equatable {
        /// Files not applied as they are now: new, edited, or applied and since removed.
        var notApplied: [String] = []
        /// Functions and views no file defines.
        var undefined: [String] = []
        /// Functions and views the last migrate applied that are gone.
        var missing: [String] = []
        /// Functions and views whose definition changed since the last migrate.
        var altered: [String] = []
    }

    static let createTable = """
        CREATE TABLE IF NOT EXISTS public.schema_definitions (
            kind       text NOT NULL CHECK (kind IN ('file', 'function', 'view')),
            name       text NOT NULL,
            sha256     text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (kind, name)
        )
        """

    /// What the files and the catalog say now: `kind`, `name`, `sum`.
    private static let current = """
        SELECT 'file'::text AS kind, f.name, encode(sha256(convert_to(f.sql, 'UTF8')), 'hex') AS sum
          FROM unnest($1::text[], $2::text[]) AS f(name, sql)
        UNION ALL
        \(DefinitionCatalog.definitionsQuery)
        """

    /// Records the files and objects just applied (the last step of applying them). A row whose
    /// sum is unchanged keeps its time, so applying twice changes nothing.
    static func record(_ definitions: SchemaDefinitions, on connection: PGConnection) throws {
        try connection.execute(script: createTable)
        try connection.execute(script: DefinitionCatalog.printingSettings)
        try connection.query(query("""
            WITH cur AS (\(current)),
            gone AS (
                DELETE FROM public.schema_definitions old
                 WHERE NOT EXISTS (SELECT 1 FROM cur WHERE cur.kind = old.kind AND cur.name = old.name))
            INSERT INTO public.schema_definitions AS d (kind, name, sha256)
            SELECT kind, name, sum FROM cur
            ON CONFLICT (kind, name) DO UPDATE SET sha256 = EXCLUDED.sha256, applied_at = now()
             WHERE d.sha256 <> EXCLUDED.sha256
            """, definitions))
    }

    /// Compares without writing (any role that can read the catalog and the table may).
    static func compare(_ definitions: SchemaDefinitions, on connection: PGConnection) throws -> Comparison {
        try connection.transaction { connection in
            var comparison = Comparison()
            guard try connection.query("SELECT to_regclass('public.schema_definitions') IS NOT NULL AS present")[0]
                .bool("present") else {
                comparison.notApplied = definitions.files.map(\.path)
                return comparison
            }
            try connection.execute(script: DefinitionCatalog.printingSettings)
            let rows = try connection.query(query("""
                WITH cur AS (\(current))
                SELECT coalesce(cur.kind, d.kind) AS kind, coalesce(cur.name, d.name) AS name,
                       cur.sum IS NOT NULL AS present, d.sha256 IS NOT NULL AS recorded
                  FROM cur FULL JOIN public.schema_definitions d ON d.kind = cur.kind AND d.name = cur.name
                 WHERE cur.sum IS DISTINCT FROM d.sha256
                 ORDER BY 1, 2
                """, definitions))
            for row in rows {
                let kind = try row.string("kind"), name = try row.string("name")
                let present = try row.bool("present"), recorded = try row.bool("recorded")
                switch (kind, present, recorded) {
                case ("file", true, _): comparison.notApplied.append(name)
                case ("file", false, _): comparison.notApplied.append("\(name) (removed)")
                case (_, true, false): comparison.undefined.append("\(kind) \(name)")
                case (_, false, _): comparison.missing.append("\(kind) \(name)")
                default: comparison.altered.append("\(kind) \(name)")
                }
            }
            return comparison
        }
    }

    /// `sql` with the files' paths and texts bound as $1 and $2 (what ``current`` reads).
    private static func query(_ sql: String, _ definitions: SchemaDefinitions) -> SQLQuery {
        SQLQuery(sql, binds: [PGArray(definitions.files.map(\.path)).pgValue, PGArray(definitions.files.map(\.sql)).pgValue])
    }
}
