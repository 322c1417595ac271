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
    private var pool: DatabasePool!
    private var lanes: DuelLanes!
    private var core: DuelServerCore!
    private var lws: LWSServer!
    /// The conninfo the server uses (for the printed psql hint and for tests).
    public private(set) var conninfo = ""
    /// This process's id among the instances on the database (`instances` table).
    private var instance = ""

    public init(configuration: ServerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Starts everything; returns once the server accepts connections.
    public func start() throws {
        guard Passwords.initialize() else { throw ServerError.startup("libsodium failed to initialize") }
        if let url = configuration.databaseURL {
            conninfo = url
        } else {
            let root = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("postgres")
            let postgres = try EmbeddedPostgres(root: root, logger: logger)
            try postgres.start()
            embedded = postgres
            conninfo = postgres.conninfo()
        }
        let setup = try PGConnection(conninfo)
        let applied = try Migrator(directory: SQLFiles.migrations).apply(on: setup)
        if !applied.isEmpty { logger.info("applied migrations", metadata: ["versions": "\(applied)"]) }
        let seeded = try SeedBanks.loadIfEmpty(on: setup)
        if !seeded.isEmpty { logger.info("loaded seed banks", metadata: ["banks": "\(seeded)"]) }
        let instance = String(UUID().uuidString.prefix(8).lowercased())
        // With a live peer, wait until it has seen this instance's heartbeat (its
        // health job runs every second), so it announces events our players need.
        let peers = try setup.heartbeat(instance: instance).peers
        setup.close()
        if peers > 0 { Thread.sleep(forTimeInterval: 1.5) }
        self.instance = instance

        pool = DatabasePool(conninfo: conninfo, size: configuration.databaseConnections, origin: instance, logger: logger)
        lanes = DuelLanes(conninfo: conninfo, count: configuration.duelLanes, origin: instance, logger: logger)
        lanes.setAnnouncing(peers > 0)
        core = DuelServerCore(configuration: configuration, pool: pool, lanes: lanes, instance: instance, logger: logger)
        lws = try LWSServer(
            host: configuration.host, port: configuration.port,
            limits: .init(
                maxMessageBytes: configuration.maxMessageBytes, maxOutgoingBytes: configuration.maxOutgoingBytes,
                pingAfterSeconds: configuration.pingAfterSeconds, hangupAfterSeconds: configuration.idleTimeoutSeconds,
                trustedProxies: Set(configuration.trustedProxies)),
            logger: logger)
        lws.handler = core
        core.lws = lws
        lanes.setAfterBatch { [lws] in lws?.wake() }
        let core = self.core!
        core.listener = NotificationListener(
            conninfo: conninfo, channels: ["duel_events", "queue_evictions", "sessions_ended", "presence_shared"], logger: logger,
            deliver: { channel, payload in
                core.post { core in
                    switch channel {
                    case "duel_events": core.duelEventsNotified(payload)
                    case "queue_evictions": core.queueEvictionsNotified(payload)
                    case "sessions_ended": core.sessionsEndedNotified(payload)
                    case "presence_shared": core.presenceSharedNotified(payload)
                    default: break
                    }
                }
            },
            resynchronize: { core.post { $0.resynchronize() } })
        lws.start()
        core.post { core in
            core.checkHealth()
            core.rescheduleLiveDuels()
            core.runMatcher()
            core.startPeriodicJobs()
        }
    }

    /// Stops accepting, closes every client with 1001, and stops the embedded Postgres.
    public func stop() {
        core?.listener?.shutdown()
        lws?.stop()
        lanes?.shutdown()
        let instance = self.instance
        if let pool, !instance.isEmpty { _ = try? pool.runBlocking { try $0.retire(instance: instance) } }
        pool?.shutdown()
        core?.hashing.shutdown()
        embedded?.stop()
        embedded = nil
    }

    /// Where psql reaches the embedded database, if one is running.
    public var psqlHint: String? {
        embedded.map { "psql -h \($0.socketDirectory.path) -p \($0.port) -U postgres postgres" }
    }
}
