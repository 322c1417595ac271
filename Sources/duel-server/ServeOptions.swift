import ArgumentParser
import DuelServer

// The flags of `duel-server serve`, in groups by what they set (and in the order `--help`
// lists them). Flags override environment variables, which override defaults.

/// Where the server listens, which database it uses and what it serves at `/`.
struct LocationOptions: ParsableArguments {
    @Option(help: "Interface to listen on (env HOST).") var host: String?
    @Option(help: "Port for WebSocket and HTTP (env PORT).") var port: Int?
    @Option(name: .customLong("database-url"), help: "Postgres URL; omit for the embedded Postgres (env DATABASE_URL).")
    var databaseURL: String?
    @Option(name: .customLong("data-dir"), help: "Data directory of the embedded Postgres (env QUIZDUEL_DATA_DIR).")
    var dataDirectory: String?
    @Option(name: .customLong("web-dir"), help: "Static files served at / (env QUIZDUEL_WEB_DIR).") var webDirectory: String?

    func apply(to config: inout ServerConfiguration, environment: [String: String]) {
        config.network.host = host ?? environment["HOST"] ?? config.network.host
        config.network.port = port ?? environment["PORT"].flatMap(Int.init) ?? config.network.port
        config.database.url = databaseURL ?? environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        config.database.dataDirectory = dataDirectory ?? environment["QUIZDUEL_DATA_DIR"] ?? config.database.dataDirectory
        config.network.webDirectory = webDirectory ?? environment["QUIZDUEL_WEB_DIR"] ?? config.network.webDirectory
    }
}

/// The rules' timings and length.
struct DuelOptions: ParsableArguments {
    @Option(name: .customLong("countdown-ms"), help: "Countdown before the first question (default 3000).") var countdownMs: Int64?
    @Option(name: .customLong("answer-ms"), help: "Answer window per question (default 10000).") var answerMs: Int64?
    @Option(name: .customLong("reveal-ms"), help: "Reveal pause (default 2000).") var revealMs: Int64?
    @Option(name: .customLong("abandon-ms"), help: "Disconnection that forfeits a duel (default 60000).") var abandonMs: Int64?
    @Option(name: .customLong("questions"), help: "Questions per duel (default 10).") var questions: Int?

    func apply(to config: inout ServerConfiguration) {
        if let countdownMs { config.duel.countdownMs = countdownMs }
        if let answerMs { config.duel.answerWindowMs = answerMs }
        if let revealMs { config.duel.revealMs = revealMs }
        if let abandonMs { config.duel.abandonAfterMs = abandonMs }
        if let questions { config.duel.questionCount = questions }
    }
}

/// Challenges, reports, authoring, notifications and rematches.
struct SocialOptions: ParsableArguments {
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

    func apply(to config: inout ServerConfiguration) {
        if let challengeTtlMs { config.social.challengeTtlMs = max(1, challengeTtlMs) }
        if let challengesPerMinute { config.social.challengesPerMinute = max(1, challengesPerMinute) }
        if let challengesReceivedPerMinute { config.social.challengesReceivedPerMinute = max(1, challengesReceivedPerMinute) }
        if let reportsPerHour { config.social.reportsPerHour = max(1, reportsPerHour) }
        if let authoringPerMinute { config.social.authoringPerMinute = max(1, authoringPerMinute) }
        if let notificationRetentionDays { config.social.notificationRetentionDays = max(1, notificationRetentionDays) }
        if let rematchWindowMs { config.social.rematchWindowMs = max(1, rematchWindowMs) }
    }
}

/// Who may connect, how many, and how fast they may send and sign in.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .customLong("allowed-origin"), help: "Allowed Origin for WebSocket upgrades; repeat for several (env QUIZDUEL_ALLOWED_ORIGINS, comma-separated). Default: any.")
    var allowedOrigins: [String] = []
    @Option(name: .customLong("max-connections-per-address"), help: "Connection cap per client address (default 256).")
    var maxPerAddress: Int?
    @Option(name: .customLong("max-connections"), help: "Connection cap for the whole server (default: the open-file limit minus 256).")
    var maxConnections: Int?
    @Option(name: .customLong("trusted-proxy"), help: "Address of a reverse proxy whose X-Forwarded-For / Forwarded header names the client; repeat for several (env QUIZDUEL_TRUSTED_PROXIES, comma-separated). Default: none.")
    var trustedProxies: [String] = []
    @Option(name: .customLong("fair-cap-ms"), help: "The most an answer is credited for its player's measured round trip, in ms; 0 judges answers by arrival, as protocol version 1 (env QUIZDUEL_FAIR_CAP_MS; default 250).")
    var fairCapMs: Int64?

    func validate() throws {
        if let fairCapMs, !(0...10_000).contains(fairCapMs) {
            throw ValidationError("--fair-cap-ms: 0 (off) to 10000 ms")
        }
    }
    @Option(name: .customLong("hash-queue"), help: "Password hashes (signup, login) waiting or running, in all (default 256).")
    var hashQueue: Int?
    @Option(name: .customLong("hash-queue-per-address"), help: "Password hashes waiting or running per client address (default 8).")
    var hashQueuePerAddress: Int?
    @Option(name: .customLong("messages-per-second"), help: "Per-connection message rate (default 20, burst 2x).")
    var messagesPerSecond: Double?

    func apply(to config: inout ServerConfiguration, environment: [String: String]) {
        config.network.allowedOrigins = allowedOrigins.isEmpty
            ? (environment["QUIZDUEL_ALLOWED_ORIGINS"] ?? "").split(separator: ",").map { String($0) }
            : allowedOrigins
        if let maxPerAddress { config.limits.maxConnectionsPerAddress = maxPerAddress }
        if let messagesPerSecond {
            config.limits.messagesPerSecond = messagesPerSecond
            config.limits.messageBurst = messagesPerSecond * 2
        }
        if let maxConnections { config.limits.maxConnections = maxConnections }
        // The flag is checked by validate(); a malformed environment value keeps the default.
        if let cap = fairCapMs ?? environment["QUIZDUEL_FAIR_CAP_MS"].flatMap({ Int64($0) }), (0...10_000).contains(cap) {
            config.network.fairCapMs = cap
        }
        config.network.trustedProxies = trustedProxies.isEmpty
            ? (environment["QUIZDUEL_TRUSTED_PROXIES"] ?? "").split(separator: ",").map { String($0) }
            : trustedProxies
        if let hashQueue { config.signIn.hashQueueTotal = hashQueue }
        if let hashQueuePerAddress { config.signIn.hashQueuePerAddress = hashQueuePerAddress }
    }
}

/// The database's connections and the start's patience with it.
struct DatabaseOptions: ParsableArguments {
    @Option(name: .customLong("db-connections"), help: "Database worker connections for sign-in, queue and reads (default 8).") var dbConnections: Int?
    @Option(name: .customLong("duel-lanes"), help: "Duel lanes: connections that apply duel inputs in batches (default 1).") var duelLanes: Int?
    @Flag(name: .customLong("migrate"), help: "Apply migrations at start even on a given DATABASE_URL (needs the owner's rights).")
    var migrate = false
    @Option(name: .customLong("lane-gather-ms"),
            help: "The longest an input waits, from its arrival, while its duel lane gathers more for a small round, in ms (default 7; 0: never).")
    var laneGatherMs: Double?
    @Option(name: .customLong("progress-gather-ms"),
            help: "On plain Postgres with one instance, the longest an ended game's progress waits to be granted with other games', apart from the duel lanes, in ms (default 100; 0: in the game's own round).")
    var progressGatherMs: Double?
    @Option(name: .customLong("queue-gather-ms"),
            help: "The longest a queue request waits for others to be written with it in one transaction, in ms (default 20; 0: never).")
    var queueGatherMs: Int64?
    @Option(name: .customLong("database-wait"), help: "Seconds to keep retrying an unreachable database at start (default 60).")
    var databaseWait: Double?
    @Flag(name: .customLong("store-every-event"),
          help: "Store every duel event, not only each game's final one (readers derive the rest from the input log); for tests and measurements.")
    var storeEveryEvent = false

    func apply(to config: inout ServerConfiguration) {
        if let dbConnections { config.database.connections = dbConnections }
        if let duelLanes { config.database.duelLanes = duelLanes }
        if let laneGatherMs { config.database.laneGatherMs = max(0, min(50, laneGatherMs)) }
        if let progressGatherMs { config.database.progressGatherMs = max(0, min(1_000, progressGatherMs)) }
        if let queueGatherMs { config.jobs.queueGatherMs = max(0, min(200, queueGatherMs)) }
        if migrate { config.database.migrateOnStart = true }
        if let databaseWait { config.database.waitSeconds = databaseWait }
        if storeEveryEvent { config.database.storesEveryEvent = true }
    }
}
