import DuelCore
import Foundation

/// The team's starter banks in `sql/seed/*.json` (the quiz-file format with the
/// bank's slug, title, description, theme and difficulty added), loaded through
/// the same operator functions an operator would use.
public enum SeedBanks {
    /// Loads every seed file when the database has no bank yet; returns the slugs loaded.
    @discardableResult
    public static func loadIfEmpty(on connection: PGConnection, directory: URL = SQLFiles.seed) throws -> [String] {
        guard try connection.query("SELECT count(*) AS n FROM banks")[0].int("n") == 0 else { return [] }
        return try load(on: connection, directory: directory)
    }

    /// Loads every seed file, all in one transaction.
    public static func load(on connection: PGConnection, directory: URL = SQLFiles.seed) throws -> [String] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        return try connection.transaction { connection in
            try files.map { file in
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                let json = try JSONParser.parse(text)
                guard let slug = json["slug"]?.string, let title = json["title"]?.string else {
                    throw StoreError(.badRequest, "\(file): slug and title are required")
                }
                try connection.query("""
                    SELECT ops.create_bank(\(slug), \(title), \(json["description"]?.string ?? ""),
                                           \(json["theme"]?.string ?? "general"), \(json["difficulty"]?.string ?? "mixed"))
                    """)
                try connection.query("SELECT ops.import_quiz(\(slug), \(text)::jsonb, 'seed')")
                return slug
            }
        }
    }
}
