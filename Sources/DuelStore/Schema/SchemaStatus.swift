/// How a database compares with the SQL files a server ships with: its applied migrations, and
/// its functions and views against `sql/functions`, `sql/views` and `sql/grants.sql`.
public struct SchemaStatus: Sendable, Equatable, CustomStringConvertible {
    /// Files not applied yet, by file name.
    public var missing: [String] = []
    /// Files applied once and edited since.
    public var changed: [String] = []
    /// Versions applied that no file here knows (a newer server migrated the database).
    public var unknown: [Int] = []
    /// Definition files not applied as they are now (new, edited, or removed since the last
    /// migrate), by path under `sql/`.
    public var definitionsNotApplied: [String] = []
    /// Functions and views of schemas public and ops that no file defines.
    public var undefinedObjects: [String] = []
    /// Functions and views the last migrate applied that are gone from the database.
    public var missingObjects: [String] = []
    /// Functions and views changed in the database (by hand) since the last migrate applied them.
    public var alteredObjects: [String] = []

    public init() {}

    /// Whether the functions and views are exactly those of the files, as the last migrate left them.
    public var definitionsCurrent: Bool {
        definitionsNotApplied.isEmpty && undefinedObjects.isEmpty && missingObjects.isEmpty && alteredObjects.isEmpty
    }

    /// Every migration applied unchanged, and the functions and views those of the files. A
    /// database a newer server migrated (unknown versions) is accepted, its definitions too:
    /// migrations only add, so an older server still finds everything it uses.
    public var isCurrent: Bool { missing.isEmpty && changed.isEmpty && (definitionsCurrent || !unknown.isEmpty) }

    public var description: String {
        if isCurrent { return "the database schema is current" }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("not applied: \(missing.joined(separator: ", "))") }
        if !changed.isEmpty { parts.append("changed after applying: \(changed.joined(separator: ", "))") }
        if unknown.isEmpty {
            if !definitionsNotApplied.isEmpty {
                parts.append("functions and views not applied as in sql/: \(Self.list(definitionsNotApplied))")
            }
            if !undefinedObjects.isEmpty { parts.append("no file defines: \(Self.list(undefinedObjects))") }
            if !missingObjects.isEmpty { parts.append("missing: \(Self.list(missingObjects))") }
            if !alteredObjects.isEmpty { parts.append("changed since the last migrate: \(Self.list(alteredObjects))") }
        }
        return "the database schema is not current (\(parts.joined(separator: "; "))); "
            + "run `duel-server migrate` as the database owner first"
    }

    /// The first few names and how many more (a database never given the definitions misses them all).
    private static func list(_ names: [String]) -> String {
        names.count <= 6 ? names.joined(separator: ", ")
            : names.prefix(5).joined(separator: ", ") + " and \(names.count - 5) more"
    }
}
