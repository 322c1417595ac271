import Foundation

/// The functions, views and grants of `sql/functions/`, `sql/views/` and `sql/grants.sql`.
///
/// Each function name (all its overloads) and each view is defined once in the whole tree, in a
/// file named after it (`functions/ops.add_question.sql`, `views/public.missed_questions.sql`),
/// with CREATE OR REPLACE, so reading what an object does means opening one file, not finding
/// the last migration that redefined it. ``DefinitionApplier`` applies them all on every migrate
/// after the pending migrations; ``DefinitionLedger`` checks the running schema against them.
public struct SchemaDefinitions: Sendable, Equatable {
    public struct File: Sendable, Equatable {
        public enum Kind: String, Sendable {
            case function, view, grants
        }

        public let kind: Kind
        /// The path under `sql/`, as messages and the ledger name it: `functions/ops.bank_id.sql`.
        public let path: String
        /// The object it defines, `schema.name`; empty for the grants.
        public let object: String
        public let sql: String

        public init(kind: Kind, path: String, object: String, sql: String) {
            self.kind = kind
            self.path = path
            self.object = object
            self.sql = sql
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case missingFolder(String)
        case badFileName(String)

        public var description: String {
            switch self {
            case .missingFolder(let path): "\(path) is missing: functions, views and grants.sql live beside the migrations"
            case .badFileName(let path):
                "\(path) must be named <schema>.<name>.sql, the schema public or ops and the name the object's"
            }
        }
    }

    /// The schemas whose functions and views the files own: every object there has a file.
    public static let schemas = ["public", "ops"]

    public let files: [File]

    public init(files: [File]) {
        self.files = files
    }

    /// Reads `functions/*.sql`, `views/*.sql` and `grants.sql` of the `sql/` folder.
    public init(directory: URL) throws {
        var files: [File] = []
        for (folder, kind) in [("functions", File.Kind.function), ("views", .view)] {
            let url = directory.appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: url.path) else { throw Failure.missingFolder(url.path) }
            let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".sql") }
            for name in names.sorted() {
                let path = "\(folder)/\(name)"
                guard let object = Self.objectName(ofFile: name) else { throw Failure.badFileName(path) }
                let sql = try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
                files.append(File(kind: kind, path: path, object: object, sql: sql))
            }
        }
        let grants = directory.appendingPathComponent("grants.sql")
        guard FileManager.default.fileExists(atPath: grants.path) else { throw Failure.missingFolder(grants.path) }
        files.append(File(kind: .grants, path: "grants.sql", object: "",
                          sql: try String(contentsOf: grants, encoding: .utf8)))
        self.init(files: files)
    }

    public var functions: [File] { files.filter { $0.kind == .function } }
    public var views: [File] { files.filter { $0.kind == .view } }
    public var grants: [File] { files.filter { $0.kind == .grants } }

    /// `ops.add_question.sql` → `ops.add_question`; nil unless the schema is one of ``schemas``
    /// and the name a plain lower-case identifier (what Postgres prints unquoted).
    static func objectName(ofFile name: String) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "sql", schemas.contains(String(parts[0])),
              let first = parts[1].first, first == "_" || first.isLowercase,
              parts[1].allSatisfy({ $0.isASCII && ($0 == "_" || $0.isNumber || $0.isLowercase) })
        else { return nil }
        return "\(parts[0]).\(parts[1])"
    }
}
