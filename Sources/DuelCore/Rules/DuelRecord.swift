/// The duel record of the event envelope (PROTOCOL.md, "`record` fields").
///
/// It holds only what either player may know at that moment: never a correct
/// choice or a chosen option of a question that is not yet revealed (rule 10).
/// Because of that the record is the same for both players, so the server
/// stores it once with each event and fans the same bytes out to both.
public struct DuelRecord: Sendable, Equatable {
    public struct Player: Sendable, Equatable {
        public let id: PlayerID
        public let username: String
        /// Pre-duel rating in this bank, rounded.
        public let rating: Int
        public let score: Int
        public let connected: Bool
        /// The lag the server measured and credits (issue 26): the capped round trip; 0 unmeasured.
        public let lagMs: Int64
    }

    public struct Question: Sendable, Equatable {
        public let index: Int
        public let questionID: Int64
        public let prompt: String
        public let type: QuestionType
        /// Empty for text and number questions.
        public let choices: [String]
        public let opensAtMs: Int64
        public let deadlineMs: Int64
    }

    /// An answer to the current question, without the option picked.
    public struct Answer: Sendable, Equatable {
        public let player: PlayerID
        public let correct: Bool
        /// Arrival on the server's clock.
        public let atMs: Int64
        /// How much earlier than `atMs` it counted (issue 26): the author's lag when it came,
        /// less any part before the question opened.
        public let creditMs: Int64
    }

    public struct Reveal: Sendable, Equatable {
        public let questionIndex: Int
        /// The question's key, shown once the question is revealed.
        public let key: AnswerKey
        /// What each player sent, by player id; nil for no answer.
        public let answers: [PlayerID: Submission?]
        public let points: [PlayerID: Int]

        /// The right option of a single or boolean question.
        public var correctChoice: Int? { key.correctChoice }
        /// Picked option by player id; nil for no answer or an answer that is not one choice.
        public var choices: [PlayerID: Int?] { answers.mapValues { $0?.choice } }
    }

    public struct Result: Sendable, Equatable {
        public let winner: PlayerID?
        public let reason: FinishReason
        /// Rounded ratings before and after, by player id.
        public let ratings: [PlayerID: (before: Int, after: Int)]
        /// Place by player id, 1 first, ties sharing a place.
        public let placements: [PlayerID: Int]

        public static func == (lhs: Result, rhs: Result) -> Bool {
            lhs.winner == rhs.winner && lhs.reason == rhs.reason && lhs.placements == rhs.placements
                && lhs.ratings.count == rhs.ratings.count
                && lhs.ratings.allSatisfy { key, value in
                    rhs.ratings[key].map { $0.before == value.before && $0.after == value.after } ?? false
                }
        }
    }

    public let id: String
    public let bank: String
    public let mode: DuelMode
    public let state: DuelPhase
    public let players: [Player]
    public let questionCount: Int
    public let questionIndex: Int
    public let question: Question?
    /// When the current phase ends on the server's clock: the countdown's end, the open
    /// question's deadline, the reveal's end; nil once finished. (A question that settles
    /// (issue 26) may close before its deadline.)
    public let phaseEndsAtMs: Int64?
    public let answers: [Answer]
    public let reveal: Reveal?
    public let result: Result?

    /// Whether the game changes ratings: the mode decides (ranked duels only).
    public var rated: Bool { mode.isRated }
}
