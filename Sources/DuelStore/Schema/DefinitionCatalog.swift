/// Queries on the database's own catalog about the functions and views the definition files own
/// (schemas ``SchemaDefinitions/schemas``, extensions' objects left out): shared by
/// ``DefinitionApplier``, which applies the files, and ``DefinitionLedger``, which checks them.
enum DefinitionCatalog {
    /// An object as the catalog holds it now.
    struct Object: Equatable {
        /// `function` or `view`.
        let kind: String
        /// The function's signature (`ops.add_question(text,text,text[],text,text)`) or the view's name.
        let name: String
        /// `schema.name`, what a file is named after.
        let object: String
        /// Changes whenever the object is created or replaced: the catalog row's physical address.
        let version: String
    }

    static let schemaList = SchemaDefinitions.schemas.map { "'\($0)'" }.joined(separator: ", ")

    /// Every function and view of the owned schemas.
    static func objects(on connection: PGConnection) throws -> [Object] {
        try connection.query("""
            SELECT 'function' AS kind, p.oid::regprocedure::text AS name, n.nspname || '.' || p.proname AS object,
                   p.ctid::text AS version
              FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
             WHERE n.nspname IN (\(unsafeRaw: schemaList))
               AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
            UNION ALL
            SELECT 'view', c.oid::regclass::text, n.nspname || '.' || c.relname, r.ctid::text
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              JOIN pg_rewrite r ON r.ev_class = c.oid AND r.rulename = '_RETURN'
             WHERE n.nspname IN (\(unsafeRaw: schemaList)) AND c.relkind = 'v'
               AND NOT EXISTS (SELECT 1 FROM pg_depend d
                                WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
            """).map { row in
            Object(kind: try row.string("kind"), name: try row.string("name"), object: try row.string("object"),
                   version: try row.string("version"))
        }
    }

    /// A query listing `kind`, `name` and `sum` (sha256 of the definition as Postgres prints it)
    /// for every function and view of the owned schemas. Run it under ``printingSettings``: the
    /// printed text depends on the search path and a few display settings.
    static let definitionsQuery = """
        SELECT 'function'::text AS kind, p.oid::regprocedure::text AS name,
               encode(sha256(convert_to(CASE WHEN p.prokind = 'a' THEN p.oid::regprocedure::text
                                             ELSE pg_get_functiondef(p.oid) END, 'UTF8')), 'hex') AS sum
          FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname IN (\(schemaList))
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
        UNION ALL
        SELECT 'view', c.oid::regclass::text, encode(sha256(convert_to(pg_get_viewdef(c.oid), 'UTF8')), 'hex')
          FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname IN (\(schemaList)) AND c.relkind = 'v'
           AND NOT EXISTS (SELECT 1 FROM pg_depend d
                            WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
        """

    /// Settings that make the printed definitions the same for every role and session: every
    /// name schema-qualified, nothing quoted that need not be, dates and intervals in one style.
    /// Local to the transaction they run in.
    static let printingSettings = """
        SET LOCAL search_path = pg_catalog, pg_temp;
        SET LOCAL quote_all_identifiers = off;
        SET LOCAL DateStyle = 'ISO, MDY';
        SET LOCAL IntervalStyle = postgres
        """
}
