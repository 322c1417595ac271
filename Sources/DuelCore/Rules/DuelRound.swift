/// One answer as the server stores it, including what was picked, typed or entered.
public struct DuelAnswer: Sendable, Equatable {
    public let player: PlayerID
    /// What the player sent; hidden from the others until the reveal.
    public let submission: Submission
    public let correct: Bool
    /// Server time the answer arrived.
    public let atMs: Int64
    /// The time every rule but the deadline judges it by: its arrival less its author's lag,
    /// never before the question opened (issue 26). Equal to `atMs` without compensation.
    public let creditedAtMs: Int64
    public let points: Int

    public init(player: PlayerID, submission: Submission, correct: Bool, atMs: Int64, points: Int,
                creditedAtMs: Int64? = nil) {
        self.player = player
        self.submission = submission
        self.correct = correct
        self.atMs = atMs
        self.creditedAtMs = creditedAtMs ?? atMs
        self.points = points
    }

    /// How much earlier than its arrival the answer counts.
    public var creditMs: Int64 { atMs - creditedAtMs }

    /// The option picked, for a single or boolean question.
    public var choice: Int? { submission.choice }
}

/// The stored form: the submission's key beside the others (``Submission``'s coding).
extension DuelAnswer: Codable {
    private enum CodingKeys: String, CodingKey { case player, correct, atMs, points, creditedAtMs }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(player: try c.decode(PlayerID.self, forKey: .player), submission: try Submission(from: decoder),
                  correct: try c.decode(Bool.self, forKey: .correct), atMs: try c.decode(Int64.self, forKey: .atMs),
                  points: try c.decode(Int.self, forKey: .points),
                  creditedAtMs: try c.decodeIfPresent(Int64.self, forKey: .creditedAtMs))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(player, forKey: .player)
        try submission.encode(to: encoder)
        try c.encode(correct, forKey: .correct)
        try c.encode(atMs, forKey: .atMs)
        try c.encode(points, forKey: .points)
        // Only when credited: states without compensation stay as they were stored before it.
        if creditedAtMs != atMs { try c.encode(creditedAtMs, forKey: .creditedAtMs) }
    }
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
    /// Answers that wait for the settle (issue 26): once a correct answer has come, every answer
    /// waits here, unjudged and unseen, until no one could still arrive credited earlier.
    /// Nil when nothing waits.
    public internal(set) var pending: [DuelAnswer]? = nil
    /// When the waiting answers are judged; nil when nothing waits.
    public internal(set) var settlesAtMs: Int64? = nil

    public var isRevealed: Bool { revealedAtMs != nil }

    /// Whether answers wait for the settle.
    public var isSettling: Bool { settlesAtMs != nil }

    /// The player's answer, judged or waiting.
    public func answer(of player: PlayerID) -> DuelAnswer? {
        answers.first { $0.player == player } ?? pending?.first { $0.player == player }
    }

    /// Points scored by `player` in this round (0 when unanswered or wrong).
    public func points(of player: PlayerID) -> Int {
        answers.first { $0.player == player }?.points ?? 0
    }
}
