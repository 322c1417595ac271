import DuelCore
import DuelStore
import Foundation

/// Runs work off the lws thread and brings its result back: database jobs on the pool's
/// workers, duel inputs in their lanes, anything posted from another thread. Results come
/// back on the lws thread through the inbox, with the connection they served if it is still
/// open. The one way other threads reach the lws thread.
final class ServerJobs: @unchecked Sendable {
    private let pool: DatabasePool
    private let lanes: DuelLanes
    private let inbox: Inbox
    private let transport: any Transport
    private let connections: ConnectionTable
    private let metrics: Metrics
    /// Delivers the outboxes of jobs (``database(for:priority:delivering:then:)``).
    private let notifications: PlayerNotifications

    init(pool: DatabasePool, lanes: DuelLanes, inbox: Inbox, transport: any Transport,
         connections: ConnectionTable, metrics: Metrics, notifications: PlayerNotifications) {
        self.notifications = notifications
        self.pool = pool
        self.lanes = lanes
        self.inbox = inbox
        self.transport = transport
        self.connections = connections
        self.metrics = metrics
    }

    /// Runs `item` on the lws thread soon. Any thread.
    func post(_ item: @escaping Inbox.Item) {
        if inbox.post(item) { transport.wake() }
    }

    /// What was posted since the last wake-up, to run now (lws thread).
    func drain() -> [Inbox.Item] {
        inbox.drain()
    }

    /// Runs `job` on a database worker, then `then` on the lws thread. Jobs for a
    /// connection are players' requests (normal priority); jobs for none are the server's
    /// own work (urgent), unless the caller says otherwise.
    func database<T: Sendable>(
        for connection: Connection?,
        priority: DatabasePool.Priority? = nil,
        _ job: @escaping @Sendable (PGConnection) throws -> T,
        then: @escaping @Sendable (Connection?, Result<T, Error>) -> Void
    ) {
        let id = connection?.id
        let started = DispatchTime.now().uptimeNanoseconds
        pool.submit(priority: priority ?? (connection == nil ? .urgent : .normal), job) { [self] result in
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            post { [self] in
                metrics.databaseLatency.observe(ms: elapsed)
                then(id.flatMap { connections[$0] }, result)
            }
        }
    }

    /// Runs `job` on a database worker with an ``Outbox`` for what its transactions have for
    /// players (room, challenge and rematch events, notifications), then `then` on the lws
    /// thread, then delivers the outbox to the connections here. Whatever the result: the outbox
    /// holds only what committed (a rolled-back transaction takes its events out again), and a job
    /// of several transactions may fail after the first committed.
    func database<T: Sendable>(
        for connection: Connection?,
        priority: DatabasePool.Priority? = nil,
        delivering job: @escaping @Sendable (PGConnection, Outbox) throws -> T,
        then: @escaping @Sendable (Connection?, Result<T, Error>) -> Void
    ) {
        let outbox = Outbox()
        database(for: connection, priority: priority, { db in try job(db, outbox) }) { [self] connection, result in
            then(connection, result)
            notifications.deliver(outbox)
        }
    }

    /// Applies `input` to `duel` in its lane (announced to other instances when `announce`),
    /// then `then` on the lws thread with the connection (if still open) and the committed
    /// update.
    func duelInput(
        for connection: Connection?, duel: String, _ input: DuelInput, announce: Bool,
        then: @escaping @Sendable (Connection?, Result<DuelUpdate?, Error>) -> Void
    ) {
        let id = connection?.id
        let started = DispatchTime.now().uptimeNanoseconds
        lanes.submit(duel: duel, input, announce: announce) { [self] result in
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            // No wake-up per result: the lane wakes the loop once after its batch.
            inbox.post { [self] in
                metrics.databaseLatency.observe(ms: elapsed)
                then(id.flatMap { connections[$0] }, result)
            }
        }
    }
}
