import DuelCore
import DuelStore
import Foundation

/// `queue` requests gathered for a few milliseconds and written together (issue 25): one
/// database job, one round trip and one transaction for all of them
/// (``QueueRepository/enqueue(_:questionsNeeded:instance:)``). lws thread only.
///
/// At human pace with 4,000 players about 110 requests a second queued, each a transaction of
/// its own: its commit, its WAL flush, and the wake-ups of a worker thread and its Postgres
/// backend for one row. The first request of a batch arms a timer `windowMs` ahead; what arrives
/// until it fires (or until `maxBatch` requests wait) goes with it. A join waits at most
/// `windowMs` longer, inside the matcher's own spacing (``MatcherGate``, 50 ms), and the matcher
/// is started once per batch instead of once per request.
final class QueueJoins: @unchecked Sendable {
    /// The deadline schedule's key of the batch's timer (like the periodic jobs' keys it starts
    /// with `~`, which duel ids never do).
    static let timerKey = "~queue-joins"

    /// One request, and what runs on the lws thread with its result: `matchAfter` is true on the
    /// last request of a batch in which anyone was queued.
    struct Join: Sendable {
        let connectionID: UInt64
        let player: PlayerID
        let bank: String
        let then: @Sendable (_ connection: Connection?, _ result: Result<Int64, Error>, _ matchAfter: Bool) -> Void
    }

    private let windowMs: Int64
    private let maxBatch: Int
    private let questionsNeeded: Int
    private let instance: String
    private let timer: DeadlineTimer
    private let jobs: ServerJobs
    private let connections: ConnectionTable
    private var pending: [Join] = []

    /// `windowMs` 0: every request goes at once, alone.
    init(windowMs: Int64, maxBatch: Int = 100, questionsNeeded: Int, instance: String, timer: DeadlineTimer,
         jobs: ServerJobs, connections: ConnectionTable) {
        self.connections = connections
        self.windowMs = max(0, windowMs)
        self.maxBatch = max(1, maxBatch)
        self.questionsNeeded = questionsNeeded
        self.instance = instance
        self.timer = timer
        self.jobs = jobs
        timer.handle(Self.timerKey) { [unowned self] in flush() }
    }

    /// Requests waiting for their batch.
    var waiting: Int { pending.count }

    func add(_ join: Join) {
        pending.append(join)
        if windowMs == 0 || pending.count >= maxBatch {
            flush()
        } else if pending.count == 1 {
            timer.schedule(Self.timerKey, atMs: Clock.nowMs() + windowMs)
        }
    }

    /// Sends what waits (the timer fired, or the batch is full).
    func flush() {
        timer.cancel(Self.timerKey)
        guard !pending.isEmpty else { return }
        // A request whose connection closed while it waited is dropped: the close already removed
        // the player's queue entry, and writing it now would leave a waiter nobody holds.
        let batch = pending.filter { connections[$0.connectionID] != nil }
        pending = []
        guard !batch.isEmpty else { return }
        let requests = batch.map { (player: $0.player, bank: $0.bank) }
        let (needed, instance) = (questionsNeeded, self.instance)
        // Players' requests: normal priority, as each one alone was.
        jobs.database(for: nil, priority: .normal, { db in
            QueueRepository(db).enqueue(requests, questionsNeeded: needed, instance: instance)
        }) { [connections] _, result in
            let results: [Result<Int64, Error>] = switch result {
            case .success(let each): each
            case .failure(let error): batch.map { _ in .failure(error) }
            }
            let queuedAny = results.contains { if case .success = $0 { true } else { false } }
            for (index, (join, result)) in zip(batch, results).enumerated() {
                join.then(connections[join.connectionID], result, queuedAny && index == batch.count - 1)
            }
        }
    }
}
