/// One duel's input log replayed on its start state (``DuelRepository/replayedEvents(_:)``).
public struct ReplayedDuel: Sendable {
    /// The start's last seq: its events are written with the duel, not replayed.
    public let startSeq: Int
    /// The events after the start, as they would be stored.
    public var events: [StoredEvent] = []
    /// Logged inputs that changed nothing on replay (each changed the duel when it was applied).
    public var unchangedInputs = 0
    /// The seq and input count after the whole log (the row's `last_seq` and `inputs`).
    public var lastSeq = 0
    public var inputs = 0
}
