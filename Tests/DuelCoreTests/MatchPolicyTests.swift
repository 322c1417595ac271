import Testing
@testable import DuelCore

@Suite struct MatchPolicyTests {
    let policy = MatchPolicy()

    func entry(_ id: String, _ rating: Double, _ at: Int64) -> QueueEntry {
        QueueEntry(player: id, rating: rating, enqueuedAtMs: at)
    }

    @Test func closeRatingsPairAtOnce() {
        let pairs = policy.pairs([entry("a", 1500, 0), entry("b", 1550, 0)], nowMs: 0)
        #expect(pairs.count == 1)
    }

    @Test func theAcceptedGapWidensWithWaiting() {
        let far = [entry("a", 1500, 0), entry("b", 1900, 0)]
        #expect(policy.pairs(far, nowMs: 0).isEmpty)
        #expect(policy.pairs(far, nowMs: 5_000).isEmpty)
        #expect(policy.pairs(far, nowMs: 8_000).count == 1)
        #expect(policy.acceptedGap(waitedMs: 1_000) < policy.acceptedGap(waitedMs: 2_000))
    }

    @Test func anyTwoWaitersPairWithinTheBound() {
        let extremes = [entry("a", 100, 0), entry("b", 3_900, 0)]
        #expect(policy.pairs(extremes, nowMs: policy.alwaysPairAfterMs - 1).isEmpty)
        #expect(policy.pairs(extremes, nowMs: policy.alwaysPairAfterMs).count == 1)
        #expect(policy.alwaysPairAfterMs < 30_000)
    }

    @Test func theLongerWaiterDecides() {
        // "a" has waited 20 s; "b" just came: the gap fits a's allowance, so they pair.
        #expect(policy.pairs([entry("a", 1500, 0), entry("b", 2200, 20_000)], nowMs: 20_000).count == 1)
    }

    @Test func neverPairsAPlayerWithThemselves() {
        #expect(policy.pairs([entry("a", 1500, 0), entry("a", 1500, 10)], nowMs: 60_000).isEmpty)
        #expect(policy.pairs([entry("a", 1500, 0)], nowMs: 60_000).isEmpty)
    }

    @Test func earlierWaitersChooseFirstAndTakeTheClosest() {
        let pairs = policy.pairs([
            entry("late", 1510, 900), entry("first", 1500, 0), entry("second", 1560, 100), entry("close", 1501, 500),
        ], nowMs: 1_000)
        #expect(pairs.count == 2)
        #expect(pairs[0].0.player == "first")
        #expect(pairs[0].1.player == "close")
        #expect(pairs[1].0.player == "second")
        #expect(pairs[1].1.player == "late")
    }

    @Test func aPartnerOnTheSameInstanceIsPreferredWithinTheGap() {
        func on(_ id: String, _ rating: Double, _ at: Int64, _ instance: String) -> QueueEntry {
            QueueEntry(player: id, rating: rating, enqueuedAtMs: at, instance: instance)
        }
        let pairs = policy.pairs([
            on("first", 1500, 0, "x"), on("closest-elsewhere", 1501, 10, "y"), on("same", 1560, 20, "x"),
            on("far-same", 2400, 30, "x"),
        ], nowMs: 1_000)
        #expect(pairs.first.map { [$0.0.player, $0.1.player] } == ["first", "same"])
        // Beyond the accepted gap, the same instance does not count: the closest acceptable partner wins.
        #expect(!pairs.contains { $0.0.player == "first" && $0.1.player == "far-same" })
    }

    @Test func playersOnDifferentInstancesPairOnlyAfterAShortWait() {
        let apart = [QueueEntry(player: "a", rating: 1500, enqueuedAtMs: 0, instance: "x"),
                     QueueEntry(player: "b", rating: 1500, enqueuedAtMs: 100, instance: "y")]
        #expect(policy.pairs(apart, nowMs: policy.crossInstanceAfterMs - 1).isEmpty)
        #expect(policy.pairs(apart, nowMs: policy.crossInstanceAfterMs).count == 1)
        // Unknown instances (rows queued before migration 008) pair as before.
        #expect(policy.pairs([entry("c", 1500, 0), entry("d", 1500, 0)], nowMs: 0).count == 1)
    }

    @Test func theMatchingIsMaximalAndDisjoint() {
        var generator = SplitMix(seed: 7)
        for round in 0..<200 {
            let count = Int(generator.next() % 40)
            let entries = (0..<count).map { index in
                entry("p\(index)", 1000 + Double(generator.next() % 1200), Int64(generator.next() % 30_000))
            }
            let now: Int64 = 30_000 + Int64(round)
            let pairs = policy.pairs(entries, nowMs: now)
            let paired = pairs.flatMap { [$0.0.player, $0.1.player] }
            #expect(Set(paired).count == paired.count)
            for (a, b) in pairs { #expect(policy.accepts(a, b, nowMs: now)) }
            let left = entries.filter { !paired.contains($0.player) }
            for a in left {
                for b in left where a.player != b.player { #expect(!policy.accepts(a, b, nowMs: now)) }
            }
        }
    }

    /// The pairing rule stated plainly (every pair compared), as it was written before the
    /// search by rating: earlier waiters choose first, each takes the acceptable partner on its
    /// own instance first, then the closest rating, then the earlier waiter.
    func pairsComparingEveryPair(_ entries: [QueueEntry], nowMs: Int64) -> [(QueueEntry, QueueEntry)] {
        var seen = Set<PlayerID>()
        let waiting = entries.sorted { ($0.enqueuedAtMs, $0.player) < ($1.enqueuedAtMs, $1.player) }
            .filter { seen.insert($0.player).inserted }
        var taken = [Bool](repeating: false, count: waiting.count)
        var result: [(QueueEntry, QueueEntry)] = []
        for i in waiting.indices where !taken[i] {
            let rank = { (k: Int) in
                (waiting[k].instance == nil || waiting[k].instance != waiting[i].instance ? 1 : 0,
                 abs(waiting[k].rating - waiting[i].rating), k)
            }
            let best = waiting.indices.filter { $0 > i && !taken[$0] && policy.accepts(waiting[i], waiting[$0], nowMs: nowMs) }
                .min { rank($0) < rank($1) }
            if let j = best {
                taken[i] = true
                taken[j] = true
                result.append((waiting[i], waiting[j]))
            }
        }
        return result
    }

    @Test func theSearchByRatingPairsAsComparingEveryPairDoes() {
        var generator = SplitMix(seed: 11)
        let instances: [String?] = [nil, "one", "two"]
        for round in 0..<300 {
            let count = Int(generator.next() % 60)
            // Few distinct ratings and times, so ties are common; some waited past every bound.
            let entries = (0..<count).map { _ in
                QueueEntry(player: "p\(generator.next() % UInt64(count + 5))",
                           rating: Double(1_200 + 25 * Int(generator.next() % 25)),
                           enqueuedAtMs: Int64(generator.next() % 31) * 1_000,
                           instance: instances[Int(generator.next() % 3)])
            }
            let now: Int64 = round % 3 == 0 ? 60_000 : 30_000 + Int64(round)
            let fast = policy.pairs(entries, nowMs: now).map { [$0.0.player, $0.1.player] }
            let plain = pairsComparingEveryPair(entries, nowMs: now).map { [$0.0.player, $0.1.player] }
            #expect(fast == plain, "round \(round)")
        }
    }
}

/// A tiny deterministic generator for reproducible random inputs.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
