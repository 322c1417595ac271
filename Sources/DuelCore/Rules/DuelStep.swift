/// What one input to a ``Duel`` produced: the reply, and what the I/O layer must do.
///
/// The I/O layer stores `events` (and `completion`, in the same transaction),
/// sends the events to the players, and schedules a wake-up at `nextDeadlineMs`.
public struct DuelStep: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The input was applied (or was a no-op, like a deadline not yet due).
        case accepted
        /// An answer was accepted: the `answer` op's reply.
        case answered(correct: Bool, points: Int)
        /// The input was refused; it changed nothing.
        case rejected(DuelRejection)
    }

    public internal(set) var outcome: Outcome = .accepted
    /// Events to append, in seq order. A rejected input may still carry events when
    /// a deadline that was already due had to be applied first (rule 3 is measured by
    /// the server's clock, not by when a timer happened to fire).
    public internal(set) var events: [DuelEvent] = []
    /// Set when this step finished the duel: the ratings to write exactly once.
    public internal(set) var completion: DuelResult?
    /// When the engine next needs `advance(nowMs:)`; nil once finished.
    public internal(set) var nextDeadlineMs: Int64?

    /// Whether the state changed and must be stored.
    public var changedState: Bool { !events.isEmpty || stateTouched }
    var stateTouched = false

    public var rejection: DuelRejection? {
        if case .rejected(let rejection) = outcome { return rejection }
        return nil
    }
}
