/// One answer as the server stores it, including the chosen option.
public struct DuelAnswer: Sendable, Codable, Equatable {
    public let player: PlayerID
    /// The option picked; hidden from the opponent until the reveal.
    public let choice: Int
    public let correct: Bool
    /// Server time the answer arrived.
    public let atMs: Int64
    public let points: Int
}

/// Why a question was revealed.
public enum RevealCause: String, Sendable, Codable, Equatable {
    /// A correct answer won it and locked the opponent out (rule 4).
    case won
    /// Both players answered, none of them correctly first.
    case allAnswered = "all_answered"
    /// The deadline passed (rule 3).
    case deadline
}

/// The life of one question inside a duel: when it opened, the answers, its reveal.
public struct DuelRound: Sendable, Codable, Equatable {
    public let questionIndex: Int
    public let opensAtMs: Int64
    /// Answers arriving at or before this millisecond are in time (rule 3).
    public let deadlineMs: Int64
    public internal(set) var answers: [DuelAnswer]
    public internal(set) var revealedAtMs: Int64?
    public internal(set) var revealCause: RevealCause?

    public var isRevealed: Bool { revealedAtMs != nil }

    public func answer(of player: PlayerID) -> DuelAnswer? {
        answers.first { $0.player == player }
    }

    /// Points scored by `player` in this round (0 when unanswered or wrong).
    public func points(of player: PlayerID) -> Int {
        answer(of: player)?.points ?? 0
    }
}
