import Foundation

/// Reads the numbered files of `sql/migrations/` into migrations.
///
/// A migration holds table changes only; functions and views live in `sql/functions` and
/// `sql/views`, applied after the migrations. A table that needs a function while the migration
/// runs (a CHECK constraint, a trigger) includes its file where it needs it, with psql's
/// `\ir relative/path.sql`, so the migration still runs as written under psql too. The checksum
/// covers the migration's own text; the included file is checked as a definition.
public enum MigrationFiles {
    public enum Failure: Error, CustomStringConvertible {
        case badFileName(String)
        case duplicateVersion(Int)
        case noMigrations(String)
        case badInclude(migration: String, line: String)

        public var description: String {
            switch self {
            case .badFileName(let name): "migration file \(name) must be named NNN_description.sql"
            case .duplicateVersion(let version): "two migration files have version \(version)"
            case .noMigrations(let directory): "no migrations found in \(directory)"
            case .badInclude(let migration, let line):
                "\(migration): \"\(line)\": a migration may only include a file with \\ir <path relative to it>"
            }
        }
    }

    /// Every `NNN_name.sql` of `directory`, sorted by version, includes expanded.
    public static func read(_ directory: URL) throws -> [Migrator.Migration] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".sql") }
        var migrations: [Migrator.Migration] = []
        for name in names {
            guard let underscore = name.firstIndex(of: "_"), let version = Int(name[..<underscore]) else {
                throw Failure.badFileName(name)
            }
            guard !migrations.contains(where: { $0.version == version }) else { throw Failure.duplicateVersion(version) }
            let sql = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let script = try expandIncludes(in: sql, of: name, directory: directory)
            migrations.append(Migrator.Migration(version: version, name: name, sql: sql, script: script))
        }
        guard !migrations.isEmpty else { throw Failure.noMigrations(directory.path) }
        return migrations.sorted { $0.version < $1.version }
    }

    /// The text with each `\ir path` line replaced by the file it names (relative to
    /// `directory`). Any other psql meta-command is refused: libpq would send it to the server.
    static func expandIncludes(in sql: String, of name: String, directory: URL) throws -> String {
        guard sql.contains("\\") else { return sql }
        var lines: [String] = []
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("\\") else {
                lines.append(String(line))
                continue
            }
            let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, parts[0] == "\\ir" else {
                throw Failure.badInclude(migration: name, line: trimmed)
            }
            let file = directory.appendingPathComponent(String(parts[1])).standardizedFileURL
            lines.append(try String(contentsOf: file, encoding: .utf8))
        }
        return lines.joined(separator: "\n")
    }
}
