/// What one input to a ``Duel`` produced: the reply, and every write it implies.
///
/// The store executes a step without looking inside the engine: it appends the
/// input to the log when `logsInput`, updates the duel row's columns from `row`,
/// inserts `newAnswers` and `events`, and writes the ratings of `completion`
/// exactly once. It never diffs two states and never calls back into the rules.
public struct DuelStep: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The input was applied (or was a no-op, like a deadline not yet due).
        case accepted
        /// An answer was accepted: the `answer` op's reply.
        case answered(correct: Bool, points: Int)
        /// The input was refused; it changed nothing.
        case rejected(ProtocolError)
        /// An answer was taken but waits for the settle (issue 26): its verdict comes with the
        /// step that judges it (``DuelStep/settled``), and so does the reply.
        case settling
    }

    /// One answer row to insert (`duel_answers`).
    public struct NewAnswer: Sendable, Equatable {
        public let questionIndex: Int
        public let answer: DuelAnswer
        /// Milliseconds from the question opening to the answer's credited time.
        public let elapsedMs: Int64
    }

    /// The duel row's columns after the step.
    public struct Row: Sendable, Equatable {
        public let phase: DuelPhase
        public let lastSeq: Int
        public let nextDeadlineMs: Int64?
        /// Questions opened so far (what the mistakes notebook counts as asked).
        public let questionsOpened: Int
        public let result: DuelResult?
    }

    public internal(set) var outcome: Outcome = .accepted
    /// Events to append, in seq order. A rejected input may still carry events when
    /// a deadline that was already due had to be applied first (rule 3 is measured by
    /// the server's clock, not by when a timer happened to fire).
    public internal(set) var events: [DuelEvent] = []
    /// Answers accepted by this step.
    public internal(set) var newAnswers: [NewAnswer] = []
    /// Players who left a game of three or more that plays on (they are free for another).
    public internal(set) var leftPlayers: [PlayerID] = []
    /// Set when this step finished the duel: the ratings to write exactly once.
    public internal(set) var completion: DuelResult?
    /// Set with `completion` (unless an operator ended the game): each player's facts, for
    /// their XP, streak, achievements and goals, written exactly once with the completion.
    public internal(set) var facts: [GameFacts] = []
    /// Answers this step judged after they waited for the settle, by author: the verdict each
    /// author's reply carries (``Outcome/answered(correct:points:)`` or `locked_out`).
    public internal(set) var settled: [PlayerID: Outcome] = [:]
    /// When the engine next needs `advance(nowMs:)`; nil once finished.
    public internal(set) var nextDeadlineMs: Int64?
    /// The duel row after the step; nil when the step changed nothing.
    public internal(set) var row: Row?

    /// Whether the state changed: the input must be logged and the row updated.
    public var changedState: Bool { !events.isEmpty || stateTouched }
    /// The same, as the store reads it: a step that changed nothing writes nothing.
    public var logsInput: Bool { changedState }
    var stateTouched = false

    /// Set with a refusal that every later state of the duel would give too (maybe with another
    /// code): seats are fixed, a finished duel stays finished, and a question once revealed, or
    /// once answered by a player, never takes that player's answer again. So a refusal judged on
    /// a state that was not the latest (a lane's cache, when another instance moved the duel on)
    /// is still right, and the store need not read the duel's version to check it
    /// (``DuelRepository/applyCachedRound``). An answer to a question not yet opened is not one:
    /// a later state may have opened it.
    public internal(set) var refusalStands = false

    public var rejection: ProtocolError? {
        if case .rejected(let rejection) = outcome { return rejection }
        return nil
    }
}
