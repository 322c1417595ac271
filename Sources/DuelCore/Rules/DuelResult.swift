/// Why a duel finished.
public enum FinishReason: String, Sendable, Codable, Equatable {
    /// Every question was revealed (rule 8: the higher score wins).
    case completed
    /// A player gave up with `forfeit`.
    case forfeit
    /// A player stayed disconnected too long (rule 8).
    case abandoned
    /// An operator ended the duel (`ops.end_duel`): no winner, and unrated.
    case ended
}

/// A player's rating before and after the duel.
public struct RatingChange: Sendable, Codable, Equatable {
    public let before: GlickoRating
    public let after: GlickoRating
}

/// How a player's duel ended, for their statistics.
public struct PlayerOutcome: Sendable, Codable, Equatable {
    public let player: PlayerID
    public let outcome: GameOutcomeCode
    public let score: Int
    public let rating: RatingChange
}

/// A codable mirror of ``GameOutcome`` for stored state.
public enum GameOutcomeCode: String, Sendable, Codable, Equatable {
    case win, draw, loss
}

/// The result of a finished duel.
public struct DuelResult: Sendable, Codable, Equatable {
    /// Nil for a draw.
    public let winner: PlayerID?
    public let reason: FinishReason
    public let finishedAtMs: Int64
    /// One entry per player, in the duel's player order.
    public let outcomes: [PlayerOutcome]
    /// Place by player id, 1 first: by score, ties sharing a place, players who left after
    /// those who stayed, and a forfeit or abandonment in a two-player duel losing whatever
    /// the scores. Optional only so that results stored before it existed still decode.
    public let placements: [PlayerID: Int]?
    /// Whether the result changes ratings and statistics (rule 9): a ranked duel's, unless an
    /// operator ended it. Decided once, where the duel finishes; optional only so that results
    /// stored before it existed (all ranked) still decode.
    private let rated: Bool?

    public var isRated: Bool { rated ?? true }

    public init(winner: PlayerID?, reason: FinishReason, finishedAtMs: Int64, outcomes: [PlayerOutcome],
                placements: [PlayerID: Int]?, rated: Bool) {
        self.winner = winner
        self.reason = reason
        self.finishedAtMs = finishedAtMs
        self.outcomes = outcomes
        self.placements = placements
        self.rated = rated
    }

    public func outcome(of player: PlayerID) -> PlayerOutcome? {
        outcomes.first { $0.player == player }
    }
}
