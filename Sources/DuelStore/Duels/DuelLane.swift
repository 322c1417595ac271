import DuelCore
import Foundation
import Logging
import Synchronization

/// One lane of ``DuelLanes``: a thread, its connection, and the inputs waiting for its next round.
final class DuelLane: Sendable {
    private struct Waiting {
        var items: [DuelInputItem] = []
        var completions: [DuelLanes.Completion] = []
        var seeds: [Duel] = []
        var closed = false
        /// When the oldest waiting input arrived (``GatherWindow``'s budget counts from it).
        var oldestNs: UInt64 = 0
        var batches = 0
        var inputs = 0
        /// Time spent on rounds, from taking their inputs to their completions run (not the
        /// gather window's waits): busy time over wall time is how near the lane is to its limit.
        var busyNs: UInt64 = 0
    }

    private let state = Mutex(Waiting())
    /// Signalled when work arrives; the lane thread waits on it while idle.
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let conninfo: String
    private let origin: String
    private let maxBatch: Int
    private let logger: Logger
    private let afterBatch: AfterBatch
    private let shards: ShardMap
    /// The longest an input waits for its round to start while the lane gathers more (``GatherWindow``).
    private let gatherMs: Double
    /// On plain Postgres, where rounds leave their ended games' progress (nil: each round grants it).
    private let settler: ProgressSettler?
    /// Whether rounds store every event, not only a game's `complete` (``DuelLaneState``).
    private let storesEveryEvent: Bool

    init(index: Int, conninfo: String, origin: String, maxBatch: Int, gatherMs: Double, settler: ProgressSettler?,
         shards: ShardMap, storesEveryEvent: Bool, afterBatch: AfterBatch, logger: Logger) {
        self.gatherMs = gatherMs
        self.storesEveryEvent = storesEveryEvent
        self.settler = shards.distributed ? nil : settler
        self.afterBatch = afterBatch
        self.shards = shards
        self.conninfo = conninfo
        self.origin = origin
        self.maxBatch = maxBatch
        self.logger = logger
        let thread = Thread { [self] in
            run()
            stopped.signal()
        }
        thread.name = "lane-\(index)"
        thread.start()
    }

    var statistics: (batches: Int, inputs: Int, pending: Int, busyNs: UInt64) {
        state.withLock { ($0.batches, $0.inputs, $0.items.count, $0.busyNs) }
    }

    func submit(_ item: DuelInputItem, completion: @escaping DuelLanes.Completion) {
        let (accepted, wasIdle) = state.withLock { waiting -> (Bool, Bool) in
            guard !waiting.closed else { return (false, false) }
            if waiting.items.isEmpty { waiting.oldestNs = DispatchTime.now().uptimeNanoseconds }
            waiting.items.append(item)
            waiting.completions.append(completion)
            return (true, waiting.items.count == 1)
        }
        guard accepted else {
            completion(.failure(PGError.client("database unavailable: shutting down")))
            return
        }
        // Only the first input of a round needs to wake the thread; the rest ride along.
        if wasIdle { wakeUp.signal() }
    }

    func seed(_ duel: Duel) {
        state.withLock { $0.seeds.append(duel) }
    }

    func shutdown() {
        state.withLock { $0.closed = true }
        wakeUp.signal()
        stopped.wait()
    }

    private func run() {
        var connection: PGConnection?
        var backoff = Backoff()
        var lane = DuelLaneState(storesEveryEvent: storesEveryEvent)
        var gather = GatherWindow(maxWaitMs: gatherMs)
        while true {
            // A round of one or two inputs would pay a whole transaction each: wait briefly for
            // the inputs the recent rate says are coming, within the oldest one's budget.
            let (pending, oldestNs, closing) = state.withLock { ($0.items.count, $0.oldestNs, $0.closed) }
            if !closing, let pause = gather.wait(pending: pending, oldestNs: oldestNs,
                                                 nowNs: DispatchTime.now().uptimeNanoseconds) {
                usleep(UInt32(min(pause / 1_000, 1_000_000)))
            }
            let roundStartNs = DispatchTime.now().uptimeNanoseconds
            let (items, completions, seeds, closed) = state.withLock { waiting in
                let count = min(waiting.items.count, maxBatch)
                let items = Array(waiting.items.prefix(count))
                let completions = Array(waiting.completions.prefix(count))
                waiting.items.removeFirst(count)
                waiting.completions.removeFirst(count)
                // What a full round left behind waits no longer than it has.
                if !waiting.items.isEmpty { waiting.oldestNs = 0 }
                let seeds = waiting.seeds
                waiting.seeds.removeAll()
                if count > 0 {
                    waiting.batches += 1
                    waiting.inputs += count
                }
                return (items, completions, seeds, waiting.closed)
            }
            if items.isEmpty {
                if closed { break }
                wakeUp.wait()
                continue
            }
            gather.observe(items.count, nowNs: roundStartNs)
            if connection?.isOpen != true {
                connection = nil
                if backoff.mayTry(now: Date()) {
                    do {
                        let opened = try Self.openConnection(conninfo, origin: origin, distributed: shards.distributed)
                        connection = opened
                        // A new connection starts with no cached states.
                        lane = DuelLaneState(distributed: shards.distributed, storesEveryEvent: storesEveryEvent)
                        backoff.succeeded()
                    } catch {
                        backoff.failed(now: Date())
                        logger.warning("lane: database connection failed", metadata: ["error": "\(error)"])
                    }
                }
            }
            guard let connection else {
                let failure = PGError.client("database unavailable")
                completions.forEach { $0(.failure(failure)) }
                afterBatch.run(Outbox())
                continue
            }
            for duel in seeds { lane.cache.remember(duel, version: 0) }
            lane.announces = afterBatch.announcing.withLock { $0 }
            let outbox = Outbox()
            let unsettled = lane.unsettled
            if shards.groups == 1 {
                // Not while other instances run: a game's `complete` is announced by its round's
                // NOTIFY, which would reach their players before the progress is granted.
                lane.progressApart = settler != nil && !lane.announces
                let results = DuelRepository(connection).applyInputs(items, lane: &lane, outbox: outbox)
                let owed = lane.owedProgress
                if let settler, !owed.isEmpty {
                    lane.owedProgress = DuelSettlements()
                    // The replies of games that owe progress (all their inputs of the round, in
                    // order) wait for the settlement; the rest go now.
                    let owing = Set(owed.duelIDs)
                    var held: [ProgressSettler.Reply] = []
                    for (index, result) in zip(items.indices, results) {
                        if owing.contains(items[index].duelID) {
                            held.append(ProgressSettler.Reply(completion: completions[index], result: result))
                        } else {
                            completions[index](result)
                        }
                    }
                    settler.submit(owed, replies: held)
                } else {
                    for (completion, result) in zip(completions, results) { completion(result) }
                }
            } else {
                for group in shardGroups(of: items) {
                    let results = DuelRepository(connection).applyInputs(group.map { items[$0] }, lane: &lane, outbox: outbox)
                    for (index, result) in zip(group, results) { completions[index](result) }
                }
            }
            if lane.unsettled > unsettled {
                logger.warning("lane: ended games left to the sweep to settle", metadata: ["rounds": "\(lane.unsettled - unsettled)"])
            }
            afterBatch.run(outbox)
            let roundNs = DispatchTime.now().uptimeNanoseconds - roundStartNs
            state.withLock { $0.busyNs += roundNs }
        }
        connection?.close()
    }

    /// A connection with the lane's session settings (see the comments inside).
    static func openConnection(_ conninfo: String, origin: String, distributed: Bool) throws -> PGConnection {
        let opened = try PGConnection(conninfo)
        opened.notificationOrigin = origin
        // The lane's statements take arrays whose sizes vary per batch; Postgres
        // kept choosing a fresh custom plan for them, and planning the batch
        // statement was 8 % of its CPU at human pace (perf). Their generic
        // plans are the right ones (primary-key probes, inserts).
        // But a generic plan is made once, at first use: on a fresh database
        // (empty tables, never analyzed) it was a sequential scan of `duels`,
        // kept while the table grew (5.5 ms per batch lock after 40 s, a
        // third of Postgres's CPU). Every lane statement is an index probe,
        // so sequential scans are priced out on these connections.
        // On Citus the coordinator plans each distributed statement with its
        // parameters' values (to find the shard). Left to choose, Postgres took a
        // generic plan after five executions, which could not find the one shard,
        // and the statement ran on all of them (refused on the cluster suite's
        // single-shard connections, a run in two): custom plans are forced.
        // And no statement is compiled (JIT): a statement that must scan a table anyway carries
        // the refused scan's penalty in its cost, far above jit_above_cost, and Postgres then
        // compiled it at every call (235 ms a settlement, bench/NOTES.md item 55).
        try opened.execute(script: distributed
            ? "SET plan_cache_mode = force_custom_plan; SET enable_seqscan = off; SET jit = off"
            : "SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET jit = off")
        return opened
    }

    /// The batch's positions, one list per shard group in order of first appearance (on Citus):
    /// each list is one transaction, so it locks rows of one shard.
    private func shardGroups(of items: [DuelInputItem]) -> [[Int]] {
        var order: [Int] = []
        var positions: [Int: [Int]] = [:]
        for (index, item) in items.enumerated() {
            let group = shards.group(of: item.duelID)
            if positions[group] == nil { order.append(group) }
            positions[group, default: []].append(index)
        }
        return order.map { positions[$0]! }
    }
}
