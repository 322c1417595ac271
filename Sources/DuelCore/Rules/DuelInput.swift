/// One input to a duel, as a value: what the store logs and replays.
///
/// Every input that changed a duel is appended to the duel's input log
/// (`duel_inputs`) in the transaction that applied it. The engine is pure and
/// deterministic, so the duel's start state plus its logged inputs, replayed
/// in order, rebuild exactly the state in memory (see ``Duel/replay(_:)``).
public enum DuelInput: Sendable, Equatable {
    /// A player's answer arriving at server time `atMs` (rules 3-6).
    case answer(player: PlayerID, questionIndex: Int, submission: Submission, atMs: Int64)
    /// A player gives up (rule 8).
    case forfeit(player: PlayerID, atMs: Int64)
    /// A timer or sweep: apply the deadlines due at `atMs`.
    case advance(atMs: Int64)
    /// The player's last connection closed: the abandonment clock starts.
    case disconnected(player: PlayerID, atMs: Int64)
    /// The player is connected again: the abandonment clock stops.
    case reconnected(player: PlayerID, atMs: Int64)
    /// An operator ends the duel (`ops.end_duel`): unrated, no winner.
    case end(atMs: Int64)
    /// The server measured the player's connection: from now on an answer of theirs is credited
    /// `lagMs` earlier than it arrived, and a first correct answer waits for them that long
    /// (issue 26, ``Duel/settleTime(of:in:)``). `lagMs` is already the capped round trip.
    case lag(player: PlayerID, lagMs: Int64, atMs: Int64)

    /// A one-choice answer (single and boolean questions).
    public static func answer(player: PlayerID, questionIndex: Int, choice: Int, atMs: Int64) -> DuelInput {
        .answer(player: player, questionIndex: questionIndex, submission: .choice(choice), atMs: atMs)
    }

    /// The server time the input carries.
    public var atMs: Int64 {
        switch self {
        case .answer(_, _, _, let at), .forfeit(_, let at), .advance(let at),
             .disconnected(_, let at), .reconnected(_, let at), .end(let at), .lag(_, _, let at):
            at
        }
    }

    /// The lag a `lag` input reports (`duel_inputs.lag_ms`); nil for the others.
    public var lagMs: Int64? {
        if case .lag(_, let lag, _) = self { return lag }
        return nil
    }

    /// The player the input speaks for, if any.
    public var player: PlayerID? {
        switch self {
        case .answer(let player, _, _, _), .forfeit(let player, _), .disconnected(let player, _),
             .reconnected(let player, _), .lag(let player, _, _):
            player
        case .advance, .end:
            nil
        }
    }

    /// The stored name of the input's kind (`duel_inputs.kind`).
    public var kind: Kind {
        switch self {
        case .answer: .answer
        case .forfeit: .forfeit
        case .advance: .advance
        case .disconnected: .disconnected
        case .reconnected: .reconnected
        case .end: .end
        case .lag: .lag
        }
    }

    public enum Kind: String, Sendable, CaseIterable {
        case answer, forfeit, advance, disconnected, reconnected, end, lag
    }

    /// Rebuilds an input from its stored columns; nil when they do not form one.
    public init?(
        kind: String, player: PlayerID?, questionIndex: Int?, submission: Submission?, atMs: Int64, lagMs: Int64? = nil
    ) {
        if Kind(rawValue: kind) == .lag {
            guard let player, let lagMs, lagMs >= 0 else { return nil }
            self = .lag(player: player, lagMs: lagMs, atMs: atMs)
            return
        }
        switch (Kind(rawValue: kind), player, questionIndex, submission) {
        case (.answer?, let player?, let index?, let submission?):
            self = .answer(player: player, questionIndex: index, submission: submission, atMs: atMs)
        case (.forfeit?, let player?, _, _): self = .forfeit(player: player, atMs: atMs)
        case (.advance?, _, _, _): self = .advance(atMs: atMs)
        case (.disconnected?, let player?, _, _): self = .disconnected(player: player, atMs: atMs)
        case (.reconnected?, let player?, _, _): self = .reconnected(player: player, atMs: atMs)
        case (.end?, _, _, _): self = .end(atMs: atMs)
        default: return nil
        }
    }
}

extension Duel {
    /// Applies one input: the single entry point the store uses.
    public mutating func apply(_ input: DuelInput) -> DuelStep {
        switch input {
        case .answer(let player, let index, let submission, let atMs):
            answer(player: player, questionIndex: index, submission: submission, atMs: atMs)
        case .forfeit(let player, let atMs): forfeit(player: player, atMs: atMs)
        case .advance(let atMs): advance(nowMs: atMs)
        case .disconnected(let player, let atMs): playerDisconnected(player, atMs: atMs)
        case .reconnected(let player, let atMs): playerReconnected(player, atMs: atMs)
        case .end(let atMs): end(atMs: atMs)
        case .lag(let player, let lagMs, let atMs): measured(player, lagMs: lagMs, atMs: atMs)
        }
    }

    /// Replays logged inputs, in order, on a stored state: how a duel is rebuilt
    /// after a restart or when another instance moved it on.
    public mutating func replay(_ inputs: some Sequence<DuelInput>) {
        for input in inputs { _ = apply(input) }
    }
}

extension DuelInput {
    /// Rebuilds an input whose answer, if any, is one choice.
    public init?(kind: String, player: PlayerID?, questionIndex: Int?, choice: Int?, atMs: Int64) {
        self.init(kind: kind, player: player, questionIndex: questionIndex, submission: choice.map { .choice($0) },
                  atMs: atMs)
    }
}
