import Foundation

/// Where the project's `sql/` folder is: migrations and seed banks ship as plain
/// files an operator can read, not compiled into the binary.
public enum SQLFiles {
    /// `QUIZDUEL_SQL_DIR` when set; else `./sql` when it exists; else the `sql/`
    /// folder of the source tree this binary was built from.
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let configured = environment["QUIZDUEL_SQL_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        let local = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("sql")
        if FileManager.default.fileExists(atPath: local.appendingPathComponent("migrations").path) {
            return local
        }
        // Sources/DuelStore/Schema/SQLFiles.swift -> the package root.
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("sql")
    }

    public static var migrations: URL { directory().appendingPathComponent("migrations") }
    public static var seed: URL { directory().appendingPathComponent("seed") }
}
