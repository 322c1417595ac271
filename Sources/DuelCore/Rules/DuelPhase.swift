/// The `state` of a duel record.
public enum DuelPhase: String, Sendable, Codable, Equatable, CaseIterable {
    /// After `init`, before the first question opens.
    case countdown
    /// A question is open for answers.
    case question
    /// The current question was just revealed; the next opens after the reveal pause.
    case reveal
    /// The duel is over; it accepts nothing more.
    case finished
}
