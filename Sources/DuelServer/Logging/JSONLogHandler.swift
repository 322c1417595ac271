import DuelCore
import Foundation
import Logging

/// `--log-format json`: one JSON object per line on standard error, for log shippers.
/// Fields: `ts` (ISO 8601, ms, UTC), `level`, `logger`, `msg`, then the metadata keys as they
/// are (`duel.id`, `player.id`, `conn.id` where a log call has them; see ``LogKey``).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(label: String, level: Logger.Level, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.logLevel = level
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        write(Self.line(
            level: event.level, label: label, message: event.message.description,
            metadata: metadata.merging(event.metadata ?? [:]) { $1 }, atMs: Clock.nowMs()))
    }

    /// The line for one log call (pure, for tests).
    public static func line(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, atMs: Int64) -> String {
        var object: JSONObject = [
            "ts": .string(Timestamp.iso8601(ms: atMs)), "level": .string(level.rawValue),
            "logger": .string(label), "msg": .string(message),
        ]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where object[key] == nil { object[key] = json(value) }
        return JSONValue.object(object).serialized + "\n"
    }

    private static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let string): .string(string)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let dictionary): .object(JSONObject(dictionary.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) }))
        }
    }

    /// Writes whole lines with one `write(2)`, so lines of several threads never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Foundation.write(2, $0.baseAddress, $0.count) }
    }
}

/// Metadata keys shared by the server's log calls, so logs of one duel, player or connection
/// can be found together.
public enum LogKey {
    public static let duel = "duel.id"
    public static let player = "player.id"
    public static let connection = "conn.id"
}
