import Synchronization

/// How a run counts its duels, and how it stops at exactly `--duels` of them.
///
/// **Counting.** A duel (a ranked duel, a room game or a practice game) counts once: when the
/// first of this run's bots in it sees its `complete` event, deduplicated by duel id. It counts
/// however it ended (answered out, forfeited, abandoned), since the server completed it. With
/// a target, at most `target` duels count; one completed past it (possible only when clients
/// outside the run share the queue) is kept in ``pastTarget`` instead.
///
/// **Reserving.** Before a bot asks for a game it reserves its share of one: half a duel in the
/// ranked queue (two of the run's bots make a duel), a whole one for a room's host (who starts
/// each game) or a practice game, none for a room's other members. A share is admitted while
/// the counted duels and the shares held fit in the target, and is held until the bot asks for
/// its next game or finishes. A completed duel turns its shares into one counted duel, so when
/// the count reaches the target no bot of the run is queued or playing (the run stops at once,
/// with no duel started past the target), and bots refused a share wait for one to free up.
final class DuelTally: Sendable {
    let target: Int?

    private struct State {
        var counted = 0
        var pastTarget = 0
        /// Shares held, in halves of a duel.
        var held = 0
        var seen = Set<UInt64>()
    }

    private let state = Mutex(State())

    init(target: Int?) {
        self.target = target
    }

    /// Duels counted (never more than the target).
    var counted: Int { state.withLock { $0.counted } }
    /// Duels whose `complete` came after the target was reached.
    var pastTarget: Int { state.withLock { $0.pastTarget } }
    /// Shares held now, in halves of a duel.
    var held: Int { state.withLock { $0.held } }

    /// The target is reached (never, without one).
    var reached: Bool {
        guard let target else { return false }
        return state.withLock { $0.counted >= target }
    }

    /// Takes a share of `halves` halves of a duel; false when it would not fit the target
    /// (always true without one, false once the target is reached).
    func reserve(halves: Int) -> Bool {
        guard let target else { return true }
        return state.withLock { state in
            guard state.counted < target, 2 * state.counted + state.held + halves <= 2 * target else { return false }
            state.held += halves
            return true
        }
    }

    /// Gives back a share from ``reserve(halves:)``.
    func release(halves: Int) {
        guard target != nil, halves > 0 else { return }
        state.withLock { $0.held = max(0, $0.held - halves) }
    }

    /// A bot saw the `complete` event of `duel` (its id's hash); true when this counted it.
    @discardableResult
    func completed(duel: UInt64) -> Bool {
        state.withLock { state in
            guard state.seen.insert(duel).inserted else { return false }
            if let target, state.counted >= target {
                state.pastTarget += 1
                return false
            }
            state.counted += 1
            return true
        }
    }
}
