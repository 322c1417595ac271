import DuelCore
import DuelStore
import Foundation
import Logging

/// What libwebsockets reports goes here (``WebSocketHandler``), and from here to the part whose
/// job it is: the request router, sign-in and sessions, duel delivery, player notifications,
/// the periodic jobs, the status pages. It builds the parts, each with its dependencies at init
/// (docs/ARCHITECTURE.md has the map), and owns no rule of its own beyond admitting
/// connections. Everything here runs on the lws thread, except ``post(_:)`` and
/// ``listened(channel:payload:)``, the ways other threads reach it.
public final class DuelServerCore: @unchecked Sendable, WebSocketHandler {
    private let configuration: ServerConfiguration
    private let logger: Logger
    private let connections: ConnectionTable
    private let metrics: Metrics
    private let jobs: ServerJobs
    private let delivery: DuelDelivery
    private let notifications: PlayerNotifications
    let sessions: Sessions
    private let router: RequestRouter
    private let periodic: PeriodicJobs
    private let status: StatusPages
    /// The server-wide cap: as configured, or the open-file limit minus room for the
    /// database connections, the listener and files, so that a flood is refused here
    /// rather than failing accept() with EMFILE.
    private let maxConnections: Int

    init(configuration: ServerConfiguration, pool: DatabasePool, lanes: DuelLanes, transport: any Transport,
         instance: String, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        let connections = ConnectionTable()
        let metrics = Metrics()
        let replies = Replies(transport: transport, metrics: metrics, logger: logger)
        let notifications = PlayerNotifications(connections: connections, replies: replies, instance: instance)
        let jobs = ServerJobs(pool: pool, lanes: lanes, inbox: Inbox(), transport: transport,
                              connections: connections, metrics: metrics, notifications: notifications)
        let timer = DeadlineTimer(transport: transport)
        let delivery = DuelDelivery(
            connections: connections, replies: replies, jobs: jobs, timer: timer,
            lanes: lanes, metrics: metrics, instance: instance,
            measuresLag: LagPolicy(capMs: configuration.network.fairCapMs).isOn, logger: logger)
        let queueJoins = QueueJoins(
            windowMs: configuration.jobs.queueGatherMs, questionsNeeded: configuration.duel.questionCount,
            instance: instance, timer: timer, jobs: jobs, connections: connections)
        let periodic = PeriodicJobs(
            configuration: configuration, connections: connections, jobs: jobs, delivery: delivery, timer: timer,
            lanes: lanes, metrics: metrics, instance: instance, logger: logger)
        let sessions = Sessions(
            configuration: configuration,
            hashing: HashingQueue(threads: 2, total: configuration.signIn.hashQueueTotal, perAddress: configuration.signIn.hashQueuePerAddress),
            connections: connections, replies: replies, jobs: jobs, delivery: delivery, notifications: notifications,
            transport: transport, metrics: metrics, instance: instance)
        let games = GameRequests(
            configuration: configuration, connections: connections, replies: replies, jobs: jobs, delivery: delivery,
            notifications: notifications, metrics: metrics, queueJoins: queueJoins,
            matchNow: { [unowned periodic] in periodic.runMatcher() })
        router = RequestRouter(
            sessions: sessions, games: games, delivery: delivery,
            data: DataRequests(configuration: configuration, connections: connections, replies: replies, jobs: jobs),
            replies: replies, transport: transport, metrics: metrics)
        status = StatusPages(
            router: HTTPRouter(files: StaticFiles(root: configuration.network.webDirectory)), connections: connections,
            metrics: metrics, periodic: periodic, timer: timer, delivery: delivery, lanes: lanes)
        self.connections = connections
        self.metrics = metrics
        self.jobs = jobs
        self.delivery = delivery
        self.notifications = notifications
        self.sessions = sessions
        self.periodic = periodic
        maxConnections = configuration.limits.maxConnections ?? {
            var limit = rlimit()
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            return max(64, Int(min(limit.rlim_cur, 1 << 24)) - 256)
        }()
    }

    /// Runs `item` on the lws thread soon. Any thread.
    func post(_ item: @escaping Inbox.Item) {
        jobs.post(item)
    }

    /// The first work on the loop: health, live duels' timers, the matcher, the periodic jobs.
    func start() {
        post { [self] in periodic.start() }
    }

    /// A NOTIFY on the LISTEN connection (any thread): handled on the lws thread by the part
    /// it concerns.
    func listened(channel: String, payload: String) {
        post { [self] in
            switch channel {
            case "duel_events": delivery.duelEventsNotified(payload)
            case "queue_evictions": notifications.queueEvictionsNotified(payload)
            case "sessions_ended": sessions.sessionsEndedNotified(payload)
            case "presence_shared": connections.directory.markShared(payload)
            case "duel_commands": periodic.endDuel(payload)
            case PlayerEvent.channel: notifications.playerEventsNotified(payload)
            default: break
            }
        }
    }

    /// What a lane batch's transactions had for players beside duel events (any thread: the
    /// lane's), delivered on the lws thread after the batch's own results.
    func deliver(_ outbox: Outbox) {
        guard !outbox.isEmpty else { return }
        post { [self] in notifications.deliver(outbox) }
    }

    /// The LISTEN connection came back: events may have been missed (any thread).
    func resynchronize() {
        post { [self] in periodic.resynchronize() }
    }

    // MARK: WebSocketHandler

    func wake() {
        for item in jobs.drain() { item() }
    }

    func timerFired() {
        periodic.timerFired()
    }

    func shouldAccept(origin: String?, address: String) -> Bool {
        if !configuration.network.allowedOrigins.isEmpty {
            guard let origin, configuration.network.allowedOrigins.contains(origin) else {
                logger.info("refused upgrade from origin", metadata: ["origin": "\(origin ?? "none")"])
                return false
            }
        }
        guard connections.count < maxConnections else {
            metrics.connectionsRefused += 1
            return false
        }
        return connections.directory.connections(from: address) < configuration.limits.maxConnectionsPerAddress
    }

    func opened(_ connection: Connection) {
        connection.limiter = RateLimiter(perSecond: configuration.limits.messagesPerSecond, burst: configuration.limits.messageBurst)
        connections.opened(connection)
    }

    func received(_ connection: Connection, text: [UInt8]) {
        router.received(connection, text: text)
    }

    func closed(_ connection: Connection) {
        connections.closed(connection)
        sessions.closed(connection)
        delivery.closed(connection)
    }

    func measured(_ connection: Connection, kernelRttUs: UInt32?) {
        router.measured(connection, kernelRttUs: kernelRttUs)
    }

    func http(path: String) -> HTTPResponse {
        status.response(path: path, accepting: connections.count < maxConnections)
    }
}
