import DuelCore

/// One input addressed to one duel: what a lane batches.
public struct DuelInputItem: Sendable, Equatable {
    public let duelID: String
    public let input: DuelInput

    public init(duelID: String, input: DuelInput) {
        self.duelID = duelID
        self.input = input
    }
}
