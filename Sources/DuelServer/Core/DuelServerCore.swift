import DuelCore
import DuelStore
import Foundation
import Logging

/// The server's state and request handling. Everything on this class runs on
/// the lws thread, except ``post(_:)``, the one way other threads reach it.
public final class DuelServerCore: @unchecked Sendable, WebSocketHandler {
    let configuration: ServerConfiguration
    let pool: DatabasePool
    let lanes: DuelLanes
    let logger: Logger
    let inbox = Inbox()
    let hashing: HashingQueue
    /// The socket layer (``LWSServer``; a recording one in tests).
    let transport: any Transport
    /// Duel deadlines and the periodic jobs, fired by the one timer on the lws loop.
    var deadlines = DeadlineSchedule()
    let httpRouter: HTTPRouter

    // lws-thread state
    var connections: [UInt64: Connection] = [:]
    /// Who is connected here (see ``PlayerDirectory``).
    var directory = PlayerDirectory()
    var metrics = Metrics()
    /// When ``upkeepIfDue(nowMs:)`` next runs the upkeep.
    lazy var nextUpkeepMs: Int64 = Clock.nowMs() + configuration.upkeepIntervalMs
    /// What this instance knows of the duels it delivers (see ``DuelBook``).
    var book = DuelBook()
    /// What `/healthz` says (see ``HealthStatus``).
    var health = HealthStatus()
    /// When matcher passes run (see ``MatcherGate``).
    var matcher = MatcherGate()
    /// The copy `banks` answers from (see ``BanksCache``).
    var banks = BanksCache()
    /// Numbers `resume` requests, so a finished read clears only its own hold.
    var resumeGeneration = 0

    /// This process's id in NOTIFY payloads: its own announcements need no delivery
    /// (the transaction's completion already delivered them).
    let instance: String

    init(configuration: ServerConfiguration, pool: DatabasePool, lanes: DuelLanes, transport: any Transport,
         instance: String, logger: Logger) {
        self.instance = instance
        self.transport = transport
        self.configuration = configuration
        self.pool = pool
        self.lanes = lanes
        self.logger = logger
        self.httpRouter = HTTPRouter(files: StaticFiles(root: configuration.webDirectory))
        hashing = HashingQueue(
            threads: 2, total: configuration.hashQueueTotal, perAddress: configuration.hashQueuePerAddress)
    }

    /// Runs `item` on the lws thread soon. Any thread.
    func post(_ item: @escaping Inbox.Item) {
        if inbox.post(item) { transport.wake() }
    }

    // MARK: WebSocketHandler

    func wake() {
        for item in inbox.drain() { item(self) }
    }

    func timerFired() {
        let now = Clock.nowMs()
        for key in deadlines.popDue(nowMs: now) {
            if let job = PeriodicJob(rawValue: key) {
                run(job)
                schedule(key, atMs: now + job.intervalMs(configuration))
            } else {
                fireDeadline(duel: key)
            }
        }
        if let next = deadlines.nextDueMs { transport.wakeUp(atMs: next) }
    }

    /// Sets `key`'s deadline (see ``DeadlineSchedule/schedule(_:atMs:replace:)``) and
    /// makes sure the loop's timer wakes up for it.
    func schedule(_ key: String, atMs dueMs: Int64, replace: Bool = false) {
        deadlines.schedule(key, atMs: dueMs, replace: replace)
        if let next = deadlines.nextDueMs { transport.wakeUp(atMs: next) }
    }

    func shouldAccept(origin: String?, address: String) -> Bool {
        if !configuration.allowedOrigins.isEmpty {
            guard let origin, configuration.allowedOrigins.contains(origin) else {
                logger.info("refused upgrade from origin", metadata: ["origin": "\(origin ?? "none")"])
                return false
            }
        }
        guard connections.count < maxConnections else {
            metrics.connectionsRefused += 1
            return false
        }
        return directory.connections(from: address) < configuration.maxConnectionsPerAddress
    }

    /// The server-wide cap: as configured, or the open-file limit minus room for the
    /// database connections, the listener and files, so that a flood is refused here
    /// rather than failing accept() with EMFILE.
    lazy var maxConnections: Int = configuration.maxConnections ?? {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return max(64, Int(min(limit.rlim_cur, 1 << 24)) - 256)
    }()

    func opened(_ connection: Connection) {
        connection.limiter = RateLimiter(
            perSecond: configuration.messagesPerSecond, burst: configuration.messageBurst)
        connections[connection.id] = connection
        directory.opened(address: connection.address)
    }

    func closed(_ connection: Connection) {
        connections[connection.id] = nil
        hashing.drop(connection: connection.id)
        directory.closed(address: connection.address)
        if let player = connection.player { detach(connection, from: player) }
    }

    func http(path: String) -> HTTPResponse {
        httpRouter.response(path: path, HTTPRouter.Figures(
            health: health, nowMs: Clock.nowMs(), accepting: connections.count < maxConnections,
            metrics: { [self] in
                metrics.render(
                    connections: connections.count, playersOnline: directory.playerCount, timers: deadlines.count,
                    trackedDuels: book.trackedCount, lanes: lanes.statistics)
            }))
    }

    // MARK: Sending

    func send(_ connection: Connection, _ text: String) {
        transport.send(connection, text)
    }

    func reply(_ connection: Connection, _ ref: RequestRef?, _ data: JSONObject = [:]) {
        send(connection, ServerMessage.reply(ref: ref, data: data))
    }

    func fail(_ connection: Connection, _ ref: RequestRef?, _ error: ProtocolError) {
        metrics.errorsByCode[error.code.rawValue, default: 0] += 1
        send(connection, ServerMessage.error(ref: ref, error))
    }

    /// Translates a failure of a database or hashing job into the protocol's error.
    /// An unexpected failure is logged with the connection and player it served.
    func protocolError(_ error: Error, on connection: Connection? = nil, duel: String? = nil) -> ProtocolError {
        if let store = error as? StoreError { return store.error }
        if let pg = error as? PGError, pg.isConnectionFailure { return ProtocolError(.unavailable) }
        logger.error("request failed", metadata: logContext(connection, duel: duel).merging(["error": "\(error)"]) { $1 })
        return ProtocolError(.internal)
    }

    /// `conn.id`, `player.id` and `duel.id` for a log call, where known.
    func logContext(_ connection: Connection?, duel: String? = nil, player: String? = nil) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        if let connection {
            metadata[LogKey.connection] = "\(connection.id)"
            if let player = connection.player { metadata[LogKey.player] = .string(player) }
        }
        if let player { metadata[LogKey.player] = .string(player) }
        if let duel { metadata[LogKey.duel] = .string(duel) }
        return metadata
    }

    // MARK: Database jobs

    /// Applies `input` to `duel` in its lane, then `then` on the lws thread with the
    /// connection (if still open) and the committed update.
    func duelInput(
        for connection: Connection?, duel: String, _ input: DuelInput,
        then: @escaping @Sendable (DuelServerCore, Connection?, Result<DuelUpdate?, Error>) -> Void
    ) {
        let id = connection?.id
        let started = DispatchTime.now().uptimeNanoseconds
        lanes.submit(duel: duel, input, announce: needsAnnouncement(duel)) { [self] result in
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            // No wake-up per result: the lane wakes the loop once after its batch.
            inbox.post { core in
                core.metrics.databaseLatency.observe(ms: elapsed)
                then(core, id.flatMap { core.connections[$0] }, result)
            }
        }
    }

    /// Whether another instance must hear of this duel's next events (NOTIFY): unless
    /// this instance holds every player of it and none is also connected elsewhere.
    /// With two instances, a NOTIFY per batch held Postgres's global notify lock through
    /// each lane's WAL flush, so the instances' commits queued behind one another.
    func needsAnnouncement(_ duel: String) -> Bool {
        book.needsAnnouncement(duel, isLocal: directory.isLocal, shared: directory.shared)
    }

    /// Runs `job` on a database worker, then `then` on the lws thread. Jobs for a
    /// connection are players' requests (normal priority); jobs for none are the server's
    /// own work (urgent), unless the caller says otherwise.
    func database<T: Sendable>(
        for connection: Connection?,
        priority: DatabasePool.Priority? = nil,
        _ job: @escaping @Sendable (PGConnection) throws -> T,
        then: @escaping @Sendable (DuelServerCore, Connection?, Result<T, Error>) -> Void
    ) {
        let id = connection?.id
        let started = DispatchTime.now().uptimeNanoseconds
        pool.submit(priority: priority ?? (connection == nil ? .urgent : .normal), job) { [self] result in
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
            post { core in
                core.metrics.databaseLatency.observe(ms: elapsed)
                then(core, id.flatMap { core.connections[$0] }, result)
            }
        }
    }
}
