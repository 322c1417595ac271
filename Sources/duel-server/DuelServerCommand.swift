import ArgumentParser
import DuelCore
import DuelServer
import Foundation
import Logging

/// `duel-server`: serves by default; `duel-server migrate` applies the schema as the owner.
@main
struct DuelServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duel-server",
        abstract: "QuizDuel's real-time quiz-duel WebSocket server.",
        subcommands: [Serve.self, Migrate.self],
        defaultSubcommand: Serve.self)
}

/// Flags override environment variables, which override defaults.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve WebSocket duels and HTTP (the default command).",
        discussion: """
            With no DATABASE_URL it starts an embedded Postgres in <data-dir>/postgres, applies the \
            migrations, and loads the seed banks when there are none. With a DATABASE_URL it runs \
            with that role's rights and only checks that the schema is current (run \
            `duel-server migrate` as the owner first, or pass --migrate). SIGTERM or SIGINT stops \
            it cleanly (clients get close code 1001).
            """)

    @Option(help: "Interface to listen on (env HOST).") var host: String?
    @Option(help: "Port for WebSocket and HTTP (env PORT).") var port: Int?
    @Option(name: .customLong("database-url"), help: "Postgres URL; omit for the embedded Postgres (env DATABASE_URL).")
    var databaseURL: String?
    @Option(name: .customLong("data-dir"), help: "Data directory of the embedded Postgres (env QUIZDUEL_DATA_DIR).")
    var dataDirectory: String?
    @Option(name: .customLong("web-dir"), help: "Static files served at / (env QUIZDUEL_WEB_DIR).") var webDirectory: String?
    @Option(name: .customLong("countdown-ms"), help: "Countdown before the first question (default 3000).") var countdownMs: Int64?
    @Option(name: .customLong("answer-ms"), help: "Answer window per question (default 10000).") var answerMs: Int64?
    @Option(name: .customLong("reveal-ms"), help: "Reveal pause (default 2000).") var revealMs: Int64?
    @Option(name: .customLong("abandon-ms"), help: "Disconnection that forfeits a duel (default 60000).") var abandonMs: Int64?
    @Option(name: .customLong("questions"), help: "Questions per duel (default 10).") var questions: Int?
    @Option(name: .customLong("challenge-ttl-ms"), help: "How long a challenge waits for its target (default 300000).")
    var challengeTtlMs: Int64?
    @Option(name: .customLong("challenges-per-minute"), help: "New challenges one player may make per minute (default 5).")
    var challengesPerMinute: Int?
    @Option(name: .customLong("challenges-received-per-minute"),
            help: "New challenges one player may receive per minute, from everyone (default 10).")
    var challengesReceivedPerMinute: Int?
    @Option(name: .customLong("reports-per-hour"), help: "Reports one player may file per hour (default 10).")
    var reportsPerHour: Int?
    @Option(name: .customLong("authoring-per-minute"), help: "Quiz edits one player may make per minute (default 30).")
    var authoringPerMinute: Int?
    @Option(name: .customLong("notification-retention-days"), help: "How long notifications are kept (default 90).")
    var notificationRetentionDays: Int?
    @Option(name: .customLong("rematch-window-ms"), help: "How long a rematch offer waits for the opponent's (default 30000).")
    var rematchWindowMs: Int64?
    @Option(name: .customLong("allowed-origin"), help: "Allowed Origin for WebSocket upgrades; repeat for several (env QUIZDUEL_ALLOWED_ORIGINS, comma-separated). Default: any.")
    var allowedOrigins: [String] = []
    @Option(name: .customLong("max-connections-per-address"), help: "Connection cap per client address (default 256).")
    var maxPerAddress: Int?
    @Option(name: .customLong("max-connections"), help: "Connection cap for the whole server (default: the open-file limit minus 256).")
    var maxConnections: Int?
    @Option(name: .customLong("trusted-proxy"), help: "Address of a reverse proxy whose X-Forwarded-For / Forwarded header names the client; repeat for several (env QUIZDUEL_TRUSTED_PROXIES, comma-separated). Default: none.")
    var trustedProxies: [String] = []
    @Option(name: .customLong("hash-queue"), help: "Password hashes (signup, login) waiting or running, in all (default 256).")
    var hashQueue: Int?
    @Option(name: .customLong("hash-queue-per-address"), help: "Password hashes waiting or running per client address (default 8).")
    var hashQueuePerAddress: Int?
    @Option(name: .customLong("messages-per-second"), help: "Per-connection message rate (default 20, burst 2x).")
    var messagesPerSecond: Double?
    @Option(name: .customLong("db-connections"), help: "Database worker connections for sign-in, queue and reads (default 8).") var dbConnections: Int?
    @Option(name: .customLong("duel-lanes"), help: "Duel lanes: connections that apply duel inputs in batches (default 1).") var duelLanes: Int?
    @Flag(name: .customLong("migrate"), help: "Apply migrations at start even on a given DATABASE_URL (needs the owner's rights).")
    var migrate = false
    @Option(name: .customLong("database-wait"), help: "Seconds to keep retrying an unreachable database at start (default 60).")
    var databaseWait: Double?
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        // Before any thread starts, so that the signals reach sigwait and nobody else.
        SignalWaiter.blockTerminationSignals()
        let environment = ProcessInfo.processInfo.environment
        var config = ServerConfiguration()
        config.host = host ?? environment["HOST"] ?? config.host
        config.port = port ?? environment["PORT"].flatMap(Int.init) ?? config.port
        config.databaseURL = databaseURL ?? environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        config.dataDirectory = dataDirectory ?? environment["QUIZDUEL_DATA_DIR"] ?? config.dataDirectory
        config.webDirectory = webDirectory ?? environment["QUIZDUEL_WEB_DIR"] ?? config.webDirectory
        if let countdownMs { config.duel.countdownMs = countdownMs }
        if let answerMs { config.duel.answerWindowMs = answerMs }
        if let revealMs { config.duel.revealMs = revealMs }
        if let abandonMs { config.duel.abandonAfterMs = abandonMs }
        if let challengeTtlMs { config.challengeTtlMs = max(1, challengeTtlMs) }
        if let challengesPerMinute { config.challengesPerMinute = max(1, challengesPerMinute) }
        if let challengesReceivedPerMinute { config.challengesReceivedPerMinute = max(1, challengesReceivedPerMinute) }
        if let reportsPerHour { config.reportsPerHour = max(1, reportsPerHour) }
        if let authoringPerMinute { config.authoringPerMinute = max(1, authoringPerMinute) }
        if let notificationRetentionDays { config.notificationRetentionDays = max(1, notificationRetentionDays) }
        if let rematchWindowMs { config.rematchWindowMs = max(1, rematchWindowMs) }
        if let questions { config.duel.questionCount = questions }
        config.allowedOrigins = allowedOrigins.isEmpty
            ? (environment["QUIZDUEL_ALLOWED_ORIGINS"] ?? "").split(separator: ",").map { String($0) }
            : allowedOrigins
        if let maxPerAddress { config.maxConnectionsPerAddress = maxPerAddress }
        if let messagesPerSecond {
            config.messagesPerSecond = messagesPerSecond
            config.messageBurst = messagesPerSecond * 2
        }
        if let maxConnections { config.maxConnections = maxConnections }
        config.trustedProxies = trustedProxies.isEmpty
            ? (environment["QUIZDUEL_TRUSTED_PROXIES"] ?? "").split(separator: ",").map { String($0) }
            : trustedProxies
        if let hashQueue { config.hashQueueTotal = hashQueue }
        if let hashQueuePerAddress { config.hashQueuePerAddress = hashQueuePerAddress }
        if let dbConnections { config.databaseConnections = dbConnections }
        if let duelLanes { config.duelLanes = duelLanes }
        if migrate { config.migrateOnStart = true }
        if let databaseWait { config.databaseWaitSeconds = databaseWait }
        let problems = config.duel.problems
        guard problems.isEmpty else { throw ValidationError(problems.joined(separator: "; ")) }

        let logger = try logging.bootstrap(environment: environment)
        let server = DuelServer(configuration: config, logger: logger)
        do {
            try server.start()
        } catch {
            server.stop()
            throw error
        }
        let shown = config.host == "0.0.0.0" || config.host.isEmpty ? "localhost" : config.host
        print("QuizDuel is listening: ws://\(shown):\(config.port)/duel  (web client: http://\(shown):\(config.port)/)")
        if let hint = server.psqlHint { print("Embedded Postgres: \(hint)") }
        fflushStandardOutput()
        let signal = SignalWaiter.waitForTermination()
        logger.info("stopping", metadata: ["signal": "\(signal)"])
        server.stop()
    }
}

/// `duel-server migrate`: applies the pending migrations as the database owner and loads the
/// seed banks into a database without banks, then exits. The server itself can then run as
/// the least-privileged `quizduel_server` role.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply the database migrations (as the owner) and load the seed banks when there are none.")

    @Option(name: .customLong("database-url"), help: "Postgres URL of the database owner (env DATABASE_URL); omit for the embedded Postgres.")
    var databaseURL: String?
    @Option(name: .customLong("data-dir"), help: "Data directory of the embedded Postgres (env QUIZDUEL_DATA_DIR).")
    var dataDirectory: String?
    @Option(name: .customLong("database-wait"), help: "Seconds to keep retrying an unreachable database (default 60).")
    var databaseWait: Double = 60
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let logger = try logging.bootstrap(environment: environment)
        let url = databaseURL ?? environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        try DuelServer.migrate(
            databaseURL: url,
            dataDirectory: dataDirectory ?? environment["QUIZDUEL_DATA_DIR"] ?? ServerConfiguration().dataDirectory,
            waitingUpTo: databaseWait, logger: logger)
        print("Migrations applied; the schema is current.")
    }
}

/// `--log-level` and `--log-format`, shared by the commands.
struct LoggingOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (env LOG_LEVEL; default info).")
    var logLevel: String?
    @Option(name: .customLong("log-format"), help: "text or json: one JSON object per line (env LOG_FORMAT; default text).")
    var logFormat: String?

    func bootstrap(environment: [String: String]) throws -> Logger {
        let levelName = logLevel ?? environment["LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("--log-level: \(levelName) is not one of trace, debug, info, notice, warning, error")
        }
        let format = logFormat ?? environment["LOG_FORMAT"] ?? "text"
        switch format {
        case "text":
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case "json":
            LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        default:
            throw ValidationError("--log-format: \(format) is not text or json")
        }
        return Logger(label: "quizduel")
    }
}
