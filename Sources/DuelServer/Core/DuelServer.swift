import DuelCore
import DuelStore
import Foundation
import Logging
import Synchronization

/// A running duel server: database (embedded or given), migrations, seed banks,
/// the libwebsockets loop and the background threads, wired together.
public final class DuelServer: @unchecked Sendable {
    public let configuration: ServerConfiguration
    private let logger: Logger
    private var embedded: EmbeddedPostgres?
    /// Everything ``start()`` built, each part with its dependencies given at init; nil
    /// before the start and after ``stop()``.
    private var running: Running?
    /// The conninfo the server uses (for the printed psql hint and for tests).
    public private(set) var conninfo = ""

    /// The parts of a started server.
    private struct Running {
        let instance: String
        let pool: DatabasePool
        let lanes: DuelLanes
        let lws: LWSServer
        let core: DuelServerCore
        let listener: NotificationListener
    }

    public init(configuration: ServerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Starts everything; returns once the server accepts connections.
    public func start() throws {
        guard Passwords.initialize() else { throw ServerError.startup("libsodium failed to initialize") }
        if let url = configuration.database.url {
            conninfo = url
        } else {
            let root = URL(fileURLWithPath: configuration.database.dataDirectory).appendingPathComponent("postgres")
            let postgres = try EmbeddedPostgres(root: root, logger: logger)
            try postgres.start()
            embedded = postgres
            conninfo = postgres.conninfo()
        }
        let setup = try Self.connect(conninfo, waitingUpTo: configuration.database.waitSeconds, logger: logger)
        if configuration.database.migrateOnStart ?? (embedded != nil) {
            try Self.migrate(on: setup, logger: logger)
        } else {
            let status = try Migrator(directory: SQLFiles.migrations).verify(on: setup)
            if !status.unknown.isEmpty {
                logger.notice("the database has migrations newer than this server", metadata: ["versions": "\(status.unknown)"])
            }
        }
        let instance = String(UUID().uuidString.prefix(8).lowercased())
        // With a live peer, wait until it has seen this instance's heartbeat (its
        // health job runs every second), so it announces events our players need.
        let peers = try PlayerRepository(setup).heartbeat(instance: instance).peers
        // On Citus, the lanes commit a shard group at a time (issue 24).
        let shards = try ShardMap.load(setup)
        setup.close()
        if peers > 0 { Thread.sleep(forTimeInterval: 1.5) }
        let pool = DatabasePool(conninfo: conninfo, size: configuration.database.connections, origin: instance, logger: logger)
        let lanes = DuelLanes(conninfo: conninfo, count: configuration.database.duelLanes, origin: instance,
                              gatherMs: configuration.database.laneGatherMs,
                              progressGatherMs: configuration.database.progressGatherMs, shards: shards,
                              storesEveryEvent: configuration.database.storesEveryEvent, logger: logger)
        lanes.setAnnouncing(peers > 0)
        let lws = try LWSServer(
            host: configuration.network.host, port: configuration.network.port,
            limits: .init(
                maxMessageBytes: configuration.limits.maxMessageBytes, maxOutgoingBytes: configuration.limits.maxOutgoingBytes,
                pingAfterSeconds: configuration.network.pingAfterSeconds, hangupAfterSeconds: configuration.network.idleTimeoutSeconds,
                trustedProxies: Set(configuration.network.trustedProxies)),
            logger: logger)
        let core = DuelServerCore(
            configuration: configuration, pool: pool, lanes: lanes, transport: lws, instance: instance, logger: logger)
        lanes.setAfterBatch { [lws] outbox in
            core.deliver(outbox)
            lws.wake()
        }
        let listener = NotificationListener(
            conninfo: conninfo, channels: [
                "duel_events", "queue_evictions", "sessions_ended", "presence_shared", "duel_commands",
                PlayerEvent.channel,
            ], logger: logger,
            deliver: { channel, payload in core.listened(channel: channel, payload: payload) },
            resynchronize: { core.resynchronize() })
        running = Running(instance: instance, pool: pool, lanes: lanes, lws: lws, core: core, listener: listener)
        lws.start(handler: core)
        core.start()
    }

    /// Applies the pending migrations and loads the seed banks into a database without banks.
    /// Needs the database owner's rights (it creates tables, functions and roles).
    public static func migrate(on connection: PGConnection, logger: Logger) throws {
        let applied = try Migrator(directory: SQLFiles.migrations).apply(on: connection)
        if !applied.isEmpty { logger.info("applied migrations", metadata: ["versions": "\(applied)"]) }
        let seeded = try SeedBanks.loadIfEmpty(on: connection)
        if !seeded.isEmpty { logger.info("loaded seed banks", metadata: ["banks": "\(seeded)"]) }
    }

    /// `duel-server migrate`: migrates the given database, or the embedded one (started and
    /// stopped around it) when `databaseURL` is nil.
    public static func migrate(databaseURL: String?, dataDirectory: String, waitingUpTo seconds: Double, logger: Logger) throws {
        var embedded: EmbeddedPostgres?
        defer { embedded?.stop() }
        let conninfo: String
        if let databaseURL {
            conninfo = databaseURL
        } else {
            let postgres = try EmbeddedPostgres(
                root: URL(fileURLWithPath: dataDirectory).appendingPathComponent("postgres"), logger: logger)
            try postgres.start()
            embedded = postgres
            conninfo = postgres.conninfo()
        }
        let connection = try connect(conninfo, waitingUpTo: seconds, logger: logger)
        defer { connection.close() }
        try migrate(on: connection, logger: logger)
    }

    /// Connects, retrying while the database is unreachable (it may still be starting, as in a
    /// compose file) for up to `seconds`; other failures (a wrong password) end at once.
    public static func connect(_ conninfo: String, waitingUpTo seconds: Double, logger: Logger) throws -> PGConnection {
        let deadline = Date().addingTimeInterval(seconds)
        var delay = 0.25
        while true {
            let failure: PGError
            do {
                return try PGConnection(conninfo)
            } catch {
                failure = error
            }
            let retry = failure.isConnectionFailure && Date() < deadline
                && !failure.message.contains("authentication failed")
            guard retry else { throw failure }
            logger.warning("database not reachable yet; retrying", metadata: [
                "error": "\(failure.message.split(separator: "\n").first ?? "")", "retry_in_s": "\(delay)"])
            Thread.sleep(forTimeInterval: delay)
            delay = min(delay * 2, 5)
        }
    }

    /// Stops accepting, closes every client with 1001, and stops the embedded Postgres.
    public func stop() {
        if let running {
            running.listener.shutdown()
            running.lws.stop()
            running.lanes.shutdown()
            let instance = running.instance
            _ = try? running.pool.runBlocking { try PlayerRepository($0).retire(instance: instance) }
            running.pool.shutdown()
            running.core.sessions.hashing.shutdown()
            self.running = nil
        }
        embedded?.stop()
        embedded = nil
    }

    /// Where psql reaches the embedded database, if one is running.
    public var psqlHint: String? {
        embedded.map { "psql -h \($0.socketDirectory.path) -p \($0.port) -U postgres postgres" }
    }
}
