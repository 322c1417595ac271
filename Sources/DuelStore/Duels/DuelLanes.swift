import DuelCore
import Foundation
import Logging
import Synchronization

/// The answer path's database lanes: a few threads, each owning one connection,
/// that apply duel inputs in batches (group commit).
///
/// A duel always uses the same lane (its id's hash picks it), so its inputs keep
/// their order. Each lane commits once per round: it takes every input that
/// arrived while the previous round was committing, applies them in one
/// transaction (``DuelRepository/applyInputs(_:lane:)``), then calls each input's
/// completion. Under light load a round holds one input; under heavy load the
/// rounds grow, and the cost of a commit is shared.
///
/// On Citus (``ShardMap``) a duel's lane is picked by its shard group, and a round commits one
/// transaction per shard group it holds, so no group commit locks rows in two shards.
public final class DuelLanes: Sendable {
    public typealias Completion = @Sendable (Result<DuelUpdate?, Error>) -> Void

    private let lanes: [DuelLane]
    private let settler: ProgressSettler?
    private let afterBatch: AfterBatch
    private let shards: ShardMap
    /// The duel states this instance's event reads replayed (``DuelReplays``): lanes and readers
    /// share the instance, so they hang here.
    public let replays = DuelReplays()

    /// Whether the lanes write to a Citus cluster, where ended games are settled apart from their
    /// rounds.
    public var distributed: Bool { shards.distributed }

    /// Starts `count` lanes. Connections open on each lane's first batch.
    /// - Parameters:
    ///   - origin: tagged onto NOTIFY payloads (see ``DuelNotification``).
    ///   - maxBatch: the most inputs one transaction takes.
    ///   - shards: the shard groups of `duels` (``ShardMap/single`` on plain Postgres).
    ///   - gatherMs: the longest an input waits, from its arrival, while its lane gathers more
    ///     (``GatherWindow``; 0: never).
    ///   - progressGatherMs: on plain Postgres, the longest the progress of an ended game waits for
    ///     others' to be granted with it, apart from the lanes (``ProgressSettler``; 0: each round
    ///     grants its games' progress in its own transaction).
    ///   - storesEveryEvent: rounds store every event, not only a game's `complete` (``DuelWrites``).
    public init(conninfo: String, count: Int, origin: String, maxBatch: Int = 512, gatherMs: Double = 0,
                progressGatherMs: Double = 0, shards: ShardMap = .single, storesEveryEvent: Bool = false, logger: Logger) {
        let afterBatch = AfterBatch()
        self.afterBatch = afterBatch
        self.shards = shards
        let settler = progressGatherMs > 0 && !shards.distributed
            ? ProgressSettler(conninfo: conninfo, windowMs: progressGatherMs, afterBatch: afterBatch, logger: logger)
            : nil
        self.settler = settler
        lanes = (0..<max(1, count)).map {
            DuelLane(index: $0, conninfo: conninfo, origin: origin, maxBatch: maxBatch, gatherMs: gatherMs,
                     settler: settler, shards: shards, storesEveryEvent: storesEveryEvent, afterBatch: afterBatch, logger: logger)
        }
    }

    /// Runs `hook` on a lane's thread after the completions of each batch, with what the batch's
    /// transactions have for players beside duel events (its ``Outbox``, often empty): lets a
    /// caller whose completions only queue work deliver it and wake its consumer once per batch.
    public func setAfterBatch(_ hook: @escaping @Sendable (Outbox) -> Void) {
        afterBatch.set(hook)
    }

    /// Queues `input` for `duel`; `completion` runs on the lane's thread after the commit.
    /// `announce`: see ``DuelInputItem/announce``.
    public func submit(duel: String, _ input: DuelInput, announce: Bool = true, completion: @escaping Completion) {
        lane(of: duel).submit(DuelInputItem(duelID: duel, input: input, announce: announce), completion: completion)
    }

    /// Hands a duel's freshly created state to the lane that will run it, so its
    /// first input needs no rebuild from the stored base state.
    public func seed(_ duel: Duel) {
        lane(of: duel.id).seed(duel)
    }

    /// Whether the lanes announce committed events with NOTIFY: only while other
    /// instances run (the server learns that from its heartbeat). Starts true.
    public func setAnnouncing(_ announce: Bool) {
        afterBatch.announcing.withLock { $0 = announce }
    }

    /// Counters over all lanes, for metrics.
    public struct Statistics: Sendable {
        public var batches = 0
        public var inputs = 0
        public var pending = 0
        /// The lanes' time on rounds, summed (see ``DuelLane``).
        public var busyNs: UInt64 = 0
        /// Transactions that granted ended games' progress apart from the rounds (``ProgressSettler``).
        public var progressSettlements = 0
    }

    public var statistics: Statistics {
        lanes.reduce(into: Statistics(progressSettlements: settler?.settlements ?? 0)) { total, lane in
            let (batches, inputs, pending, busyNs) = lane.statistics
            total.busyNs += busyNs
            total.batches += batches
            total.inputs += inputs
            total.pending += pending
        }
    }

    /// Finishes what is queued, then stops the lanes and closes their connections; then grants
    /// the progress their last rounds left.
    public func shutdown() {
        lanes.forEach { $0.shutdown() }
        settler?.shutdown()
    }

    private func lane(of duel: String) -> DuelLane {
        if shards.groups > 1 { return lanes[shards.group(of: duel) % lanes.count] }
        // FNV-1a over the id's bytes: stable within the process, cheap, well spread.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in duel.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return lanes[Int(hash % UInt64(lanes.count))]
    }
}

/// The hook of ``DuelLanes/setAfterBatch(_:)``, shared by the lanes.
///
/// The closure sits in a class: a closure stored directly as a `Mutex`'s value
/// is re-wrapped in two reabstraction thunks by every `withLock` that touches
/// it (the inout write-back), and after a few thousand batches calling it went
/// through thousands of thunks (23 % of the server's CPU in perf).
final class AfterBatch: Sendable {
    private final class Hook: Sendable {
        let run: @Sendable (Outbox) -> Void
        init(_ run: @escaping @Sendable (Outbox) -> Void) { self.run = run }
    }

    private let hook = Mutex<Hook?>(nil)
    /// See ``DuelLanes/setAnnouncing(_:)``; read by each lane before its batch.
    let announcing = Mutex(true)

    func set(_ run: @escaping @Sendable (Outbox) -> Void) {
        let new = Hook(run)
        hook.withLock { $0 = new }
    }

    func run(_ outbox: Outbox) {
        hook.withLock { $0 }?.run(outbox)
    }
}
