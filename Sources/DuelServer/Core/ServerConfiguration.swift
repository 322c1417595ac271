import DuelCore
import DuelStore

/// Everything an operator can set on a `duel-server` (flags and environment; see README),
/// grouped by what it governs.
public struct ServerConfiguration: Sendable {
    public var network = Network()
    public var database = Database()
    /// What one connection may open and send.
    public var limits = Limits()
    public var signIn = SignIn()
    /// Challenges, rematches, reports, authoring and notifications.
    public var social = Social()
    /// How often the periodic jobs run.
    public var jobs = Jobs()
    public var duel: DuelConfiguration = .standard
    public var matchPolicy: MatchPolicy = MatchPolicy()

    public init() {}

    /// Where the server listens and serves, whom it believes, and how it keeps sockets alive.
    public struct Network: Sendable {
        /// Interface to listen on; empty for all.
        public var host: String = "0.0.0.0"
        public var port: Int = 8080
        /// Static files of the web client, served at `/`.
        public var webDirectory: String = "web"
        /// Allowed `Origin` values for WebSocket upgrades; empty allows any.
        public var allowedOrigins: [String] = []
        /// Reverse proxies whose X-Forwarded-For / Forwarded header is believed. A client's
        /// address is the nearest hop not in this list; with none, the socket's peer.
        public var trustedProxies: [String] = []
        /// Ping a silent peer after this; drop it after `idleTimeoutSeconds` (PROTOCOL.md: 30 s).
        public var pingAfterSeconds: UInt16 = 10
        public var idleTimeoutSeconds: UInt16 = 30
        /// The most an answer is credited for its player's round trip, in ms (issue 26,
        /// ``LagPolicy``); 0 turns lag compensation off (version 1's rules exactly).
        public var fairCapMs: Int64 = 250
    }

    /// Which Postgres, how to reach it, and how many connections use it.
    public struct Database: Sendable {
        /// Postgres URL or keywords; nil starts the embedded Postgres.
        public var url: String?
        /// Apply migrations (and load the seed banks into an empty database) at start. nil: only
        /// for the embedded Postgres; a server on a given database runs least-privileged and only
        /// checks the schema (`duel-server migrate` applies it as the owner).
        public var migrateOnStart: Bool?
        /// How long to keep retrying an unreachable database at start before giving up.
        public var waitSeconds: Double = 60
        /// Where the embedded Postgres keeps its data.
        public var dataDirectory: String = ".data"
        /// Database worker threads (each holds one connection) for everything but duel
        /// inputs: sign-in, queue, reads, matching.
        public var connections: Int = 8
        /// Duel lanes (threads, each with one connection) that apply answers, forfeits,
        /// deadlines and presence in batched transactions. A duel always uses one lane.
        public var duelLanes: Int = 1
        /// The longest an input waits, from its arrival, while its lane gathers more inputs for a
        /// small round, in ms (issue 25; 0: commit at once). See ``GatherWindow``. 7: since the
        /// next question opens in its reveal's round, a lane gets a third fewer inputs, and eight
        /// took the whole of a 10 ms bound to arrive: every answer waited about 2 ms longer than
        /// before (p50 and p90), and the p99s went over their 20 ms. 7 ms gives back 1-2 ms of
        /// that for about 4 % more CPU per answer (bench/NOTES.md, items 40 and 48).
        public var laneGatherMs: Double = 7
        /// On plain Postgres with one instance, the longest an ended game's progress (XP, goals,
        /// achievements, notifications) waits to be granted with other games', in a transaction
        /// apart from the lanes, in ms (issue 25; 0: in the round that ends the game). Its
        /// `complete` waits for it. See ``DuelLanes`` and bench/NOTES.md, item 38.
        public var progressGatherMs: Double = 100
        /// Whether lane rounds store every duel event, not only a game's `complete` (issue 25).
        /// Off: readers derive events from the input log, and a round writes no 1 KB event rows.
        /// The test servers turn it on, so that their end check compares every event with the
        /// log's replay; an A/B measures what the rows cost.
        public var storesEveryEvent = false
    }

    public struct Limits: Sendable {
        public var maxConnectionsPerAddress: Int = 256
        /// Connection cap for the whole server; nil: the open-file limit minus 256 (room for
        /// database connections and files), so the server refuses before it runs out of fds.
        public var maxConnections: Int?
        public var maxMessageBytes: Int = 4_096
        /// A slow reader's queued output above this closes the connection (1008).
        public var maxOutgoingBytes: Int = 1 << 20
        public var messagesPerSecond: Double = 20
        public var messageBurst: Double = 40
    }

    /// Signup, login and the sessions they open.
    public struct SignIn: Sendable {
        public var tokenLifetimeSeconds: Int = 30 * 24 * 3_600
        /// Failed logins allowed per username and per address within the window.
        public var loginLimits = LoginLimits()
        /// Password hashes (signup, login) waiting or running: in all, and per address.
        /// Past either bound a request is answered `rate_limited` at once.
        public var hashQueueTotal: Int = 256
        public var hashQueuePerAddress: Int = 8
    }

    public struct Social: Sendable {
        /// How long a challenge waits for its target before it expires (PROTOCOL.md: 5 minutes).
        public var challengeTtlMs: Int64 = 300_000
        /// New challenges one player may make in any minute.
        public var challengesPerMinute: Int = 5
        /// New challenges one player may receive in any minute, from everyone (issue 23: fresh
        /// accounts each under the challenger's cap still flooded one target).
        public var challengesReceivedPerMinute: Int = 10
        /// How long a rematch offer waits for the opponent's (PROTOCOL.md: 30 s).
        public var rematchWindowMs: Int64 = 30_000
        /// Reports (of questions and quizzes) one player may file in any hour (issue 23).
        public var reportsPerHour: Int = 10
        /// Quiz authoring writes one player may make in any minute (issue 13).
        public var authoringPerMinute: Int = QuizLimits.authoringPerMinute
        /// How long notifications are kept (issue 14); older ones are pruned by the hourly upkeep.
        public var notificationRetentionDays: Int = 90
    }

    public struct Jobs: Sendable {
        /// How often the matcher looks at the queues even without a NOTIFY (the widening gap needs it).
        public var matchIntervalMs: Int64 = 250
        /// The shortest time between the starts of two matcher passes that queue requests
        /// trigger (``MatcherGate``): waiters who queue within it meet in one pass.
        public var matchSpacingMs: Int64 = 50
        /// How long the first `queue` request of a batch waits for others to be written with it
        /// (``QueueJoins``; 0: each alone, at once).
        public var queueGatherMs: Int64 = 20
        /// How often the sweep looks for overdue deadlines that no timer of this instance holds.
        public var sweepIntervalMs: Int64 = 1_000
        /// The sweep's interval once no other instance has run for 30 s (``PeriodicJobs/isAlone(nowMs:)``):
        /// a safety net then, since every live duel's timer is this instance's.
        public var aloneSweepIntervalMs: Int64 = 10_000
        /// How often an instance tries the hourly upkeep (archiving old events); the first try
        /// comes one interval after start.
        public var upkeepIntervalMs: Int64 = 3_600_000
        /// How often an instance expires challenges and rematch offers, and lets room members
        /// who stayed away past the abandonment delay leave their rooms.
        public var socialIntervalMs: Int64 = 1_000
    }
}
