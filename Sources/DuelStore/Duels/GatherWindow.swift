import Foundation

/// How long a lane waits for more inputs before it commits a small round (issue 25), as
/// Postgres's own `commit_delay` waits for more commits to flush together.
///
/// At human pace a lane's rounds held one or two inputs, and each paid a whole transaction:
/// BEGIN, the lock, the write, COMMIT and its WAL flush. Waiting a few milliseconds lets the
/// inputs that arrive meanwhile share that cost. The wait is adaptive: the lane keeps a decaying
/// estimate of its input rate, and waits only as long as it takes for about `gather` more inputs
/// (eight: bench/NOTES.md item 26 measured four and eight) to arrive at that rate, and not at all
/// when not even one more input is expected within what is left of the budget (a quiet server
/// commits at once).
///
/// The budget, `maxWaitNs`, counts from the arrival of the round's oldest input, and it applies
/// to every round, also to the one that follows a commit during which inputs arrived. Until
/// session 14 only a lane that had been idle waited: at 1,150 inputs a second a round's commit
/// takes long enough that most rounds found an input waiting, so most never waited, and rounds
/// held 3.6 inputs (bench/NOTES.md item 35). Counting from the oldest input keeps the bound per
/// input: none waits longer than `maxWaitNs` for its round to start.
///
/// Pure: time comes in as an argument.
public struct GatherWindow: Sendable {
    /// The longest wait; 0 turns the window off.
    public let maxWaitNs: UInt64
    /// How many more inputs a wait tries to gather.
    public let gather: Double
    /// The decaying input count per second (time constant `horizonNs`).
    private(set) var rate: Double = 0
    private var lastNs: UInt64?
    private let horizonNs: Double = 1e9

    public init(maxWaitMs: Double, gather: Double = 8) {
        maxWaitNs = UInt64(max(0, maxWaitMs) * 1e6)
        self.gather = gather
    }

    /// Counts `inputs` that arrived by `nowNs` (a round taken).
    public mutating func observe(_ inputs: Int, nowNs: UInt64) {
        decay(to: nowNs)
        rate += Double(inputs) * 1e9 / horizonNs
    }

    /// How long to wait, at `nowNs`, before taking a round that holds `pending` inputs, the oldest
    /// of which arrived at `oldestNs`; nil when it should not wait.
    public func wait(pending: Int, oldestNs: UInt64, nowNs: UInt64) -> UInt64? {
        guard maxWaitNs > 0, pending > 0, Double(pending) < gather else { return nil }
        let waited = nowNs > oldestNs ? nowNs - oldestNs : 0
        guard waited < maxWaitNs else { return nil }
        let left = maxWaitNs - waited
        let perNs = rate(at: nowNs) / 1e9
        // Not even one more input expected within what is left of the budget: commit now.
        guard perNs * Double(left) >= 1 else { return nil }
        return min(left, UInt64((gather - Double(pending)) / perNs))
    }

    /// The estimate decayed to `nowNs`.
    private func rate(at nowNs: UInt64) -> Double {
        guard let last = lastNs, nowNs > last else { return rate }
        return rate * exp(-Double(nowNs - last) / horizonNs)
    }

    private mutating func decay(to nowNs: UInt64) {
        rate = rate(at: nowNs)
        lastNs = max(lastNs ?? nowNs, nowNs)
    }
}
