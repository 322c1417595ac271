/// One player waiting in a bank's queue, as the match policy sees them.
public struct QueueEntry: Sendable, Equatable, Hashable {
    public let player: PlayerID
    /// The player's rating in the bank they queue for.
    public let rating: Double
    public let enqueuedAtMs: Int64
    /// The server instance holding the player's connection, when known.
    public let instance: String?

    public init(player: PlayerID, rating: Double, enqueuedAtMs: Int64, instance: String? = nil) {
        self.player = player
        self.rating = rating
        self.enqueuedAtMs = enqueuedAtMs
        self.instance = instance
    }
}

/// Rule 1: which waiting players of one bank to pair.
///
/// Each waiter accepts an opponent whose rating is within a gap that widens with
/// the time waited; after `alwaysPairAfterMs` any opponent is accepted, so two
/// players waiting for the same bank are paired within that bound plus one
/// matcher period. A pair is acceptable when the gap fits the longer waiter's
/// allowance (the more patient side decides), which keeps acceptability symmetric.
public struct MatchPolicy: Sendable, Equatable {
    /// Rating gap accepted right away.
    public var initialGap: Double
    /// How much the accepted gap grows per second of waiting.
    public var gapGrowthPerSecond: Double
    /// After this long, a waiter accepts anyone.
    public var alwaysPairAfterMs: Int64
    /// Until one of them has waited this long, two players held by different server
    /// instances are not paired. A duel across instances costs both instances work on
    /// every event (each applies its own player's inputs, so they contend for the duel's
    /// row and rebuild its state from the log, and each reads the other's events); under
    /// load a partner on the same instance turns up within milliseconds.
    public var crossInstanceAfterMs: Int64

    public init(initialGap: Double = 100, gapGrowthPerSecond: Double = 40, alwaysPairAfterMs: Int64 = 25_000,
                crossInstanceAfterMs: Int64 = 250) {
        self.initialGap = initialGap
        self.gapGrowthPerSecond = gapGrowthPerSecond
        self.alwaysPairAfterMs = alwaysPairAfterMs
        self.crossInstanceAfterMs = crossInstanceAfterMs
    }

    /// The rating gap a player who has waited `waitedMs` accepts.
    public func acceptedGap(waitedMs: Int64) -> Double {
        if waitedMs >= alwaysPairAfterMs { return .infinity }
        return initialGap + gapGrowthPerSecond * Double(max(0, waitedMs)) / 1_000
    }

    /// Whether `a` and `b` may be paired at `nowMs`.
    public func accepts(_ a: QueueEntry, _ b: QueueEntry, nowMs: Int64) -> Bool {
        guard a.player != b.player else { return false }
        let longestWait = max(nowMs - a.enqueuedAtMs, nowMs - b.enqueuedAtMs)
        if let one = a.instance, let other = b.instance, one != other, longestWait < crossInstanceAfterMs { return false }
        return abs(a.rating - b.rating) <= acceptedGap(waitedMs: longestWait)
    }

    /// Pairs chosen among `entries` (one bank's waiters) at `nowMs`.
    ///
    /// Earlier waiters choose first; each takes the acceptable partner with the
    /// closest rating (the earlier waiter on a tie), preferring one held by the same
    /// server instance: both players' events are then delivered by the instance that
    /// commits them, with no NOTIFY and database read on a second instance (with two
    /// instances, duels across them cost a fifth of the throughput). Acceptability is
    /// unchanged, so no rating gap beyond the rule is ever accepted for it. The result
    /// is maximal: no two players left unpaired would accept each other. A player
    /// listed twice is considered once.
    ///
    /// Each waiter's candidates are looked for outwards from its own rating, nearest first, in
    /// the rating order of all waiters: a later waiter is acceptable only within the earlier
    /// one's gap (the earlier one waited longer, so its allowance decides). The search stops once
    /// no further candidate can beat the best found. With thousands of waiters (10,000 players),
    /// comparing every pair was millions of checks a pass (issue 25).
    public func pairs(_ entries: [QueueEntry], nowMs: Int64) -> [(QueueEntry, QueueEntry)] {
        var seen = Set<PlayerID>()
        let waiting = entries
            .sorted { ($0.enqueuedAtMs, $0.player) < ($1.enqueuedAtMs, $1.player) }
            .filter { seen.insert($0.player).inserted }
        let byRating = waiting.indices.sorted { (waiting[$0].rating, $0) < (waiting[$1].rating, $1) }
        var place = [Int](repeating: 0, count: waiting.count)
        for (rank, index) in byRating.enumerated() { place[index] = rank }
        var taken = [Bool](repeating: false, count: waiting.count)
        var result: [(QueueEntry, QueueEntry)] = []
        for i in waiting.indices where !taken[i] {
            let me = waiting[i]
            let gap = acceptedGap(waitedMs: nowMs - me.enqueuedAtMs)
            // A partner on another instance (or of unknown instance) ranks after one on this
            // one; then the closer rating; then the earlier waiter.
            func rank(_ j: Int) -> (Int, Double, Int) {
                (waiting[j].instance == nil || waiting[j].instance != me.instance ? 1 : 0, abs(waiting[j].rating - me.rating), j)
            }
            var best: (Int, Double, Int)?
            var down = place[i] - 1, up = place[i] + 1
            while true {
                let below = down >= 0 ? me.rating - waiting[byRating[down]].rating : .infinity
                let above = up < byRating.count ? waiting[byRating[up]].rating - me.rating : .infinity
                let distance = min(below, above)
                // Past the gap nobody is acceptable; past the best's distance only an equal
                // rating could tie, and a partner here already beats every one further out.
                guard down >= 0 || up < byRating.count, distance <= gap else { break }
                if let found = best, found.0 == 0, distance > found.1 { break }
                let j: Int
                if below <= above {
                    j = byRating[down]
                    down -= 1
                } else {
                    j = byRating[up]
                    up += 1
                }
                guard j > i, !taken[j], accepts(me, waiting[j], nowMs: nowMs) else { continue }
                let candidate = rank(j)
                if best == nil || candidate < best! { best = candidate }
            }
            if let j = best?.2 {
                taken[i] = true
                taken[j] = true
                result.append((me, waiting[j]))
            }
        }
        return result
    }
}
