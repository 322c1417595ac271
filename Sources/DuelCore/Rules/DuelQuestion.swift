/// One question of a duel as the engine sees it, including the correct choice.
///
/// The correct choice never leaves the server before the question is revealed:
/// the public ``DuelRecord`` carries only what rule 10 allows.
public struct DuelQuestion: Sendable, Codable, Equatable {
    /// The question's id in the bank (stable across duels).
    public let id: Int64
    public let prompt: String
    /// Two to six options, shown in this order.
    public let choices: [String]
    /// 0-based index into `choices`.
    public let correctChoice: Int

    public init(id: Int64, prompt: String, choices: [String], correctChoice: Int) {
        precondition(choices.indices.contains(correctChoice), "correct choice out of range")
        self.id = id
        self.prompt = prompt
        self.choices = choices
        self.correctChoice = correctChoice
    }
}
