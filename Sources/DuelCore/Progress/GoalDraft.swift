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
    /// The goal's reminder (issue 27): a time between now and the end of the goal's week.
    public let reminder: Reminder

    /// What `goal_set` does to the goal's reminder.
    public enum Reminder: Sendable, Equatable {
        /// No `remind_at`: a goal set again keeps its reminder.
        case keep
        /// `remind_at: null`: no reminder.
        case clear
        /// A reminder at this millisecond Unix time (a new time is a new reminder: it is sent
        /// even if an earlier one was).
        case at(ms: Int64)
    }

    public init(kind: Kind, bank: String?, target: Int, reminder: Reminder = .keep) {
        self.kind = kind
        self.bank = bank
        self.target = target
        self.reminder = reminder
    }

    public static let targets = 1...10_000
}
