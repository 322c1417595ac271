import DuelCore

/// What `rematch {duel_id}` did.
public enum RematchResult: Sendable {
    /// The player's offer stands until `expiresAtMs`; the opponent got a `rematch` event.
    case offered(expiresAtMs: Int64)
    /// Both asked in time: a new ranked duel of the same bank and players (`absent`: those
    /// no instance holds, whose abandonment clocks must start).
    case started(DuelUpdate, absent: [PlayerID])
}
