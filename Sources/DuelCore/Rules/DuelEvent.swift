/// The kinds of duel event (PROTOCOL.md, "Events").
public enum DuelEventKind: String, Sendable, Codable, Equatable, CaseIterable {
    case `init`
    case question
    case answered
    case reveal
    case complete

    /// The row-change `type` of the envelope: `init` inserts the duel row, the rest update it.
    public var changeType: String { self == .`init` ? "INSERT" : "UPDATE" }
}

/// One stored duel event: what changed, when, and the public record right after it.
public struct DuelEvent: Sendable, Equatable {
    /// Per duel, from 1, gap-free.
    public let seq: Int
    public let kind: DuelEventKind
    /// Server time of the change (the envelope's `commit_timestamp`).
    public let atMs: Int64
    /// The duel record as either player may see it after this change.
    public let record: DuelRecord
}
