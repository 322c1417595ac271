/// A request a bot waits on a reply for (kept by its ref until the reply or its timeout).
enum BotRequest {
    case login
    case forfeitLeftover
    case queue
    /// `cancel` of the queue, or `room_leave` at the end.
    case cancel
    case answer(sentAt: UInt64, duel: Int, index: Int)
    case forfeitAtEnd
    case resume
    /// practice, room_create, room_join, room_start (`--room-size`).
    case room

    /// Error codes that are part of the game or of stopping rather than a fault, counted in
    /// `expected_refusals` instead of `errors`: an answer that lost a race to the opponent,
    /// the deadline or the duel's end; the last `cancel` crossing a match (`not_queued`);
    /// the last `forfeit`, or that of a duel left over from an earlier run, crossing the
    /// duel's end (`duel_over`). Every other `error` reply counts in `errors` by its code.
    func expects(_ code: String) -> Bool {
        switch self {
        case .answer: code == "locked_out" || code == "too_late" || code == "duel_over"
        case .cancel: code == "not_queued"
        case .forfeitAtEnd, .forfeitLeftover: code == "duel_over"
        default: false
        }
    }
}
