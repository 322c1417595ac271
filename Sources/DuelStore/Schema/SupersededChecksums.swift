import Foundation

/// Earlier texts of migrations that were rewritten on purpose, and are still the same migration.
///
/// A migration is history: an applied file that changed is an error. Issue 22 rewrote 001-017
/// once, moving their functions and views out to `sql/functions` and `sql/views`, and databases
/// migrated before that recorded the checksums of the old texts. `sql/migrations/superseded-checksums`
/// lists, per version, the checksum of the old text and the checksum of the text that replaced
/// it. A recorded old checksum is accepted only while the file still has that replacing text:
/// any other difference, before or after the rewrite, is still an error.
public struct SupersededChecksums: Sendable, Equatable {
    /// One rewrite of one migration.
    public struct Entry: Sendable, Equatable {
        public let version: Int
        /// sha256 of the text a database may have recorded.
        public let old: String
        /// sha256 of the text that replaced it, the file as it is now.
        public let current: String

        public init(version: Int, old: String, current: String) {
            self.version = version
            self.old = old
            self.current = current
        }
    }

    public enum Failure: Error, CustomStringConvertible {
        case badLine(file: String, line: Int, text: String)

        public var description: String {
            switch self {
            case .badLine(let file, let line, let text):
                "\(file), line \(line): expected \"NNN <old sha256> <current sha256>\", found \"\(text)\""
            }
        }
    }

    public let entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    /// Reads the file; a missing file lists nothing.
    public init(file: URL) throws {
        guard FileManager.default.fileExists(atPath: file.path) else {
            self.init()
            return
        }
        let text = try String(contentsOf: file, encoding: .utf8)
        try self.init(parsing: text, name: file.lastPathComponent)
    }

    /// Lines `NNN <old sha256> <current sha256>`; `#` starts a comment, blank lines are skipped.
    public init(parsing text: String, name: String) throws {
        var entries: [Entry] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if fields.isEmpty { continue }
            guard fields.count == 3, let version = Int(fields[0]),
                  fields[1...].allSatisfy(Self.isChecksum) else {
                throw Failure.badLine(file: name, line: index + 1, text: String(raw))
            }
            entries.append(Entry(version: version, old: fields[1], current: fields[2]))
        }
        self.init(entries)
    }

    /// Whether a database that recorded `recorded` for `version` applied the same migration as
    /// the file whose checksum is now `current`.
    public func accepts(version: Int, recorded: String, current: String) -> Bool {
        entries.contains { $0.version == version && $0.old == recorded && $0.current == current }
    }

    private static func isChecksum(_ text: String) -> Bool {
        text.count == 64 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }
}
