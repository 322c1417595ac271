/// How a game came about, which decides whether it is rated (issue 12).
public enum DuelMode: String, Sendable, Codable, Equatable, CaseIterable {
    /// Two strangers paired by matchmaking: the only rated mode.
    case ranked
    /// 2-4 members of a room, started by its host.
    case room
    /// A player challenged another by name.
    case challenge
    /// One player alone.
    case practice
    /// One player against a recorded opponent (issue 27): a past player's answers and timings
    /// on the same questions, replayed by the engine; or, before anyone has played the bank, the
    /// house's. The recording is not an account: only the player is stored as the game's.
    case recorded

    /// Rating rewards beating strangers; games among friends (and alone) would farm it.
    public var isRated: Bool { self == .ranked }

    /// How many players a game of this mode has.
    public var playerCounts: ClosedRange<Int> {
        switch self {
        case .ranked, .challenge, .recorded: 2...2
        case .room: 2...4
        case .practice: 1...1
        }
    }
}
