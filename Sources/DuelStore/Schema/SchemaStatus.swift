/// How a database's applied migrations compare with the migration files a server ships with.
public struct SchemaStatus: Sendable, Equatable, CustomStringConvertible {
    /// Files not applied yet, by file name.
    public var missing: [String] = []
    /// Files applied once and edited since.
    public var changed: [String] = []
    /// Versions applied that no file here knows (a newer server migrated the database).
    public var unknown: [Int] = []

    public init() {}

    /// Every file applied unchanged; newer versions are allowed (migrations only add).
    public var isCurrent: Bool { missing.isEmpty && changed.isEmpty }

    public var description: String {
        if isCurrent { return "the database schema is current" }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("not applied: \(missing.joined(separator: ", "))") }
        if !changed.isEmpty { parts.append("changed after applying: \(changed.joined(separator: ", "))") }
        return "the database schema is not current (\(parts.joined(separator: "; "))); "
            + "run `duel-server migrate` as the database owner first"
    }
}
