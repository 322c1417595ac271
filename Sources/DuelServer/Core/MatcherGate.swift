/// When matcher passes run. One pass at a time normally, with triggers that arrive
/// meanwhile coalesced into one more pass. While passes keep filling whole batches (a burst
/// of thousands queueing), up to `maxPasses` run at once: `FOR UPDATE SKIP LOCKED` gives
/// each pass waiters the others do not hold. Pure; the core owns one.
///
/// After a pass that paired nobody, the next starts at least `spacingMs` after it (issue 25).
/// At human pace every `queue` request started a pass of its own, about 90 a second for 4,000
/// players, each a few round trips that mostly paired nobody; that was 8 % of the server's CPU
/// and a sixth of Postgres's statements' (bench/NOTES.md, item 27). A trigger inside the spacing
/// defers the pass to its end instead, so waiters who queue close together meet in one pass, and
/// a pairing waits at most `spacingMs` longer. A pass that paired someone is followed at once by
/// another, as before: while thousands queue at once (the burst), passes keep going back to back
/// (spacing them all made the burst's p99 half a second longer).
struct MatcherGate {
    let maxPasses: Int
    /// Duels created by a pass that suggest more waiters are queued (a pass claims up to
    /// 500 players).
    let fullPass: Int
    let spacingMs: Int64
    /// How often a pass also evicts the waiters of banks that became too short to play (an
    /// operator retired a bank or took questions out): at the matcher's interval, not on every
    /// triggered pass.
    let evictionIntervalMs: Int64
    private var nextEvictionMs: Int64 = .min
    private(set) var running = 0
    private var again = false
    private var lastStartMs: Int64?
    /// Whether the last pass that ended paired anyone (nil: none ended yet).
    private var lastPaired = false

    /// What a trigger does.
    enum Start: Equatable {
        /// A pass starts now.
        case now
        /// A pass is running: one more runs after it.
        case coalesced
        /// A pass starts at this time (the caller arms a timer); the spacing is not over.
        case at(Int64)
    }

    init(maxPasses: Int = 3, fullPass: Int = 200, spacingMs: Int64 = 50, evictionIntervalMs: Int64 = 250) {
        self.maxPasses = maxPasses
        self.fullPass = fullPass
        self.spacingMs = spacingMs
        self.evictionIntervalMs = evictionIntervalMs
    }

    /// Whether the pass starting at `nowMs` evicts (see `evictionIntervalMs`).
    mutating func evicts(nowMs: Int64) -> Bool {
        guard nowMs >= nextEvictionMs else { return false }
        nextEvictionMs = nowMs + evictionIntervalMs
        return true
    }

    /// A trigger (a queue request, the timer, a backlog) at `nowMs`. `concurrent`: a backlog's
    /// extra pass, which neither waits for the running ones nor for the spacing.
    mutating func start(concurrent: Bool = false, nowMs: Int64) -> Start {
        if concurrent {
            guard running < maxPasses else {
                again = true
                return .coalesced
            }
        } else {
            guard running == 0 else {
                again = true
                return .coalesced
            }
            if !lastPaired, let last = lastStartMs, nowMs < last + spacingMs { return .at(last + spacingMs) }
        }
        running += 1
        lastStartMs = nowMs
        return .now
    }

    /// A pass ended, having created `created` duels (nil: it failed). Returns the passes
    /// to start now, and whether they may run concurrently.
    mutating func finished(created: Int?) -> (passes: Int, concurrent: Bool) {
        running -= 1
        lastPaired = (created ?? 0) > 0
        guard let created else { return (0, false) }
        if created >= fullPass {
            again = false
            return (maxPasses - running, true)
        }
        if again || created > 0 {
            again = false
            return (1, false)
        }
        return (0, false)
    }
}
