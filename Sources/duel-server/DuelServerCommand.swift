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

    @OptionGroup var locations: LocationOptions
    @OptionGroup var duel: DuelOptions
    @OptionGroup var social: SocialOptions
    @OptionGroup var connections: ConnectionOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    func run() throws {
        // Before any thread starts, so that the signals reach sigwait and nobody else.
        SignalWaiter.blockTerminationSignals()
        let environment = ProcessInfo.processInfo.environment
        var config = ServerConfiguration()
        locations.apply(to: &config, environment: environment)
        duel.apply(to: &config)
        social.apply(to: &config)
        connections.apply(to: &config, environment: environment)
        database.apply(to: &config)
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
        let network = config.network
        let shown = network.host == "0.0.0.0" || network.host.isEmpty ? "localhost" : network.host
        print("QuizDuel is listening: ws://\(shown):\(network.port)/duel  (web client: http://\(shown):\(network.port)/)")
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
            dataDirectory: dataDirectory ?? environment["QUIZDUEL_DATA_DIR"] ?? ServerConfiguration().database.dataDirectory,
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
