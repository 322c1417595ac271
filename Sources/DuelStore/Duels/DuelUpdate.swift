import DuelCore

/// One stored event as it goes to clients: the record is kept as JSON text and
/// spliced into the envelope unchanged.
public struct StoredEvent: Sendable, Equatable {
    public let duelID: String
    public let seq: Int
    public let kind: DuelEventKind
    public let atMs: Int64
    public let recordJSON: String

    /// The `event` message for a client.
    public func message(serverTimeMs: Int64) -> String {
        ServerMessage.duelEvent(
            kind: kind, duelID: duelID, seq: seq, atMs: atMs, recordJSON: recordJSON, serverTimeMs: serverTimeMs)
    }
}

/// The outcome of one transaction on a duel: the engine's verdict and what was stored.
public struct DuelUpdate: Sendable {
    public let duelID: String
    /// The duel's last seq after this transaction (orders updates applied out of order).
    public let seq: Int
    /// The accounts seated (a recorded opponent is none): who gets the events, and who decides
    /// whether other instances must hear of them.
    public let players: [PlayerID]
    /// The engine's reply to the input (answered, rejected...).
    public let outcome: DuelStep.Outcome
    /// Events stored by this transaction, in seq order.
    public let events: [StoredEvent]
    /// When the engine next needs to run; nil once the duel is finished.
    public let nextDeadlineMs: Int64?
    public let finished: Bool
    /// For a duel this transaction created: its engine state, for the lane that will run it.
    public var created: Duel? = nil
}

extension DuelResult {
    /// The winner as `duels.winner` stores it: an account, so nil when a recorded opponent
    /// won (issue 27: a recording is no account).
    var winnerAccount: PlayerID? { winner == DuelPlayer.recordedID ? nil : winner }
}
