import DuelCore

/// One input addressed to one duel: what a lane batches.
public struct DuelInputItem: Sendable, Equatable {
    public let duelID: String
    public let input: DuelInput
    /// Whether other instances need to hear of the events this input makes (NOTIFY):
    /// the caller knows whether all of the duel's players are its own.
    public let announce: Bool

    public init(duelID: String, input: DuelInput, announce: Bool = true) {
        self.duelID = duelID
        self.input = input
        self.announce = announce
    }
}
