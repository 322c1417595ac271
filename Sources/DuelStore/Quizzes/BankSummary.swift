import DuelCore

/// A bank as the `banks` op lists it.
public struct BankSummary: Sendable, Equatable {
    public let id: Int
    public let slug: String
    public let title: String
    public let description: String
    public let theme: String
    public let difficulty: String
    /// Active questions.
    public let questions: Int

    public var json: JSONValue {
        .object([
            "slug": .string(slug), "title": .string(title), "questions": .number(questions),
            "description": .string(description), "theme": .string(theme), "difficulty": .string(difficulty),
        ])
    }
}

extension BankSummary {
    /// SQL: bank `alias` is one matchmaking draws from (`banks`, `queue`): an operator's, or a
    /// player's published quiz an operator promoted (issue 13).
    static func inMatchmaking(_ alias: String) -> String {
        "\(alias).matchmaking AND (\(alias).owner_id IS NULL OR \(alias).published_at IS NOT NULL)"
    }

    /// SQL: bank `alias` is visible to `viewer` (nil: not signed in): an operator's bank, a
    /// published quiz, or the viewer's own quiz. The one home of "visible": a bank this is false
    /// for answers every op exactly as a missing one (`unknown_bank`), so private quizzes
    /// cannot be probed (issue 23).
    static func visible(_ alias: String, to viewer: PlayerID?) -> String {
        let id = viewer.flatMap { UUIDText.isValid($0) ? "'\($0)'::uuid" : nil } ?? "NULL"
        return "(\(alias).owner_id IS NULL OR \(alias).published_at IS NOT NULL OR \(alias).owner_id = \(id))"
    }

    /// SQL: bank `alias` may be played by `player` in practice, rooms and challenges: visible to
    /// them and not retired.
    static func playable(_ alias: String, by player: PlayerID) -> String {
        "(\(alias).retired_at IS NULL AND \(visible(alias, to: player)))"
    }
}

extension BankSummary {
    init(row: PGRow) throws {
        self.init(
            id: try row.int("id"), slug: try row.string("slug"), title: try row.string("title"),
            description: try row.string("description"), theme: try row.string("theme"),
            difficulty: try row.string("difficulty"), questions: try row.int("questions"))
    }
}
