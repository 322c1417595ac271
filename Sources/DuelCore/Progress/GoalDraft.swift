/// A weekly goal as `goal_set` sets it (issue 14).
public struct GoalDraft: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case wins, games
        case correctAnswers = "correct_answers"
        case mistakesLearned = "mistakes_learned"
    }

    public let kind: Kind
    /// nil: any bank.
    public let bank: String?
    public let target: Int

    public init(kind: Kind, bank: String?, target: Int) {
        self.kind = kind
        self.bank = bank
        self.target = target
    }

    public static let targets = 1...10_000
}
