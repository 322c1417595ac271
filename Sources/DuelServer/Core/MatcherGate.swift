/// When matcher passes run. One pass at a time normally, with triggers that arrive
/// meanwhile coalesced into one more pass. While passes keep filling whole batches (a burst
/// of thousands queueing), up to `maxPasses` run at once: `FOR UPDATE SKIP LOCKED` gives
/// each pass waiters the others do not hold. Pure; the core owns one.
struct MatcherGate {
    let maxPasses: Int
    /// Duels created by a pass that suggest more waiters are queued (a pass claims up to
    /// 500 players).
    let fullPass: Int
    private(set) var running = 0
    private var again = false

    init(maxPasses: Int = 3, fullPass: Int = 200) {
        self.maxPasses = maxPasses
        self.fullPass = fullPass
    }

    /// A trigger (a queue request, the timer, a backlog): whether a pass starts now. If
    /// not, one more pass runs after the current ones.
    mutating func start(concurrent: Bool = false) -> Bool {
        guard running == 0 || (concurrent && running < maxPasses) else {
            again = true
            return false
        }
        running += 1
        return true
    }

    /// A pass ended, having created `created` duels (nil: it failed). Returns the passes
    /// to start now, and whether they may run concurrently.
    mutating func finished(created: Int?) -> (passes: Int, concurrent: Bool) {
        running -= 1
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
