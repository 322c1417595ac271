/// One duel's complete state: the pure rules engine of rules 2-10 of PROTOCOL.md.
///
/// A value type with no I/O and no clock: every input carries the server time
/// in milliseconds, and every input returns a ``DuelStep`` saying what to store,
/// what to send and when to wake the engine next. The I/O layer loads the state
/// under the duel's row lock, applies one input, and stores the result.
///
/// Inputs never trap on bad data: an input that breaks a rule returns
/// `.rejected` with the protocol's error code and leaves the state unchanged
/// (apart from deadlines that were already due, which are applied first).
public struct Duel: Sendable, Codable, Equatable {
    public let id: String
    /// The bank's slug.
    public let bank: String
    public let configuration: DuelConfiguration
    /// One to four (two in ranked duels), in a fixed order.
    public internal(set) var players: [DuelPlayer]
    /// Stored optional so that states written before modes existed decode as ranked.
    private let storedMode: DuelMode?
    /// The questions drawn for this duel, in order; at least one.
    public let questions: [DuelQuestion]
    public internal(set) var phase: DuelPhase
    /// Rounds opened so far, one per question, in order.
    public internal(set) var rounds: [DuelRound]
    /// When the current phase ends: countdown end, question deadline or reveal end.
    public internal(set) var phaseEndsAtMs: Int64?
    /// The seq of the last event emitted (0 before `init`).
    public internal(set) var seq: Int
    public internal(set) var result: DuelResult?
    public let createdAtMs: Int64

    public var mode: DuelMode { storedMode ?? .ranked }

    /// Whether completing it changes ratings (rule 9 applies to ranked duels only).
    public var isRated: Bool { mode.isRated }

    /// How many players are still in the game: not forfeited or abandoned (in games of three
    /// or more, a player who leaves is out and the others play on).
    var activeCount: Int { players.reduce(0) { $0 + ($1.leftAtMs == nil ? 1 : 0) } }

    /// Index of the current question: the open, revealed or next-to-open one.
    public var questionIndex: Int { max(0, rounds.count - 1) }

    /// The round of the open or just-revealed question, if any has opened.
    public var currentRound: DuelRound? { rounds.last }

    /// Creates a duel and emits its `init` event (seq 1).
    ///
    /// - Parameters:
    ///   - players: the players, in the order they appear in records: two for ranked duels
    ///     and challenges, one for practice, two to four for rooms.
    ///   - questions: the drawn questions; only the first `configuration.questionCount` are used.
    /// - Returns: nil when the inputs cannot form a game (a player count the mode does not
    ///   allow, a player twice, no question).
    public static func start(
        id: String,
        bank: String,
        players: [DuelPlayer],
        questions: [DuelQuestion],
        configuration: DuelConfiguration = .standard,
        mode: DuelMode = .ranked,
        nowMs: Int64
    ) -> (Duel, DuelStep)? {
        guard mode.playerCounts.contains(players.count), Set(players.map(\.id)).count == players.count,
              !questions.isEmpty, configuration.problems.isEmpty,
              // A recorded game is one person against one recording; no other mode has one.
              players.filter(\.isRecorded).count == (mode == .recorded ? 1 : 0),
              mode != .recorded || !players[0].isRecorded
        else { return nil }
        var duel = Duel(
            id: id,
            bank: bank,
            configuration: configuration,
            players: players.map { DuelPlayer(id: $0.id, username: $0.username, rating: $0.rating, recording: $0.recording) },
            storedMode: mode == .ranked ? nil : mode,
            questions: Array(questions.prefix(configuration.questionCount)),
            phase: .countdown,
            rounds: [],
            phaseEndsAtMs: nowMs + configuration.countdownMs,
            seq: 0,
            result: nil,
            createdAtMs: nowMs
        )
        var step = DuelStep()
        duel.emit(.`init`, atMs: nowMs, into: &step)
        duel.catchUp(nowMs: nowMs, into: &step)
        duel.finishStep(&step)
        return (duel, step)
    }

    /// The index of `player` in `players`, or nil for a stranger.
    public func seat(of player: PlayerID) -> Int? {
        players.firstIndex { $0.id == player }
    }

    /// When the engine next needs ``advance(nowMs:)``, or nil once finished.
    ///
    /// A question's deadline is inclusive (an answer at the deadline millisecond
    /// is in time), so its reveal is due one millisecond later.
    public var nextDeadlineMs: Int64? {
        guard phase != .finished else { return nil }
        var next = phaseDueAtMs
        for player in players where player.leftAtMs == nil {
            if let gone = player.disconnectedAtMs {
                let due = gone + configuration.abandonAfterMs
                next = next.map { min($0, due) } ?? due
            }
        }
        return next
    }

    var phaseDueAtMs: Int64? {
        guard let end = phaseEndsAtMs else { return nil }
        guard phase == .question else { return end }
        // Answers waiting for the settle are judged at it (never after the deadline's end), and
        // a recorded opponent's answer is given at its time.
        return min(end + 1, currentRound?.settlesAtMs ?? .max, nextRecordedAnswer?.atMs ?? .max)
    }
}
