/// What a bot run does (the `duel-bots` flags).
///
/// How a bot answers is grouped in ``play`` (``PlayStyle``), since that is all a
/// ``BotPlayer`` is given; ``thinkMs``, ``accuracy`` and ``skipRate`` still read and
/// write it under the flags' names.
public struct BotConfiguration: Sendable {
    public var url = "ws://127.0.0.1:8080/duel"
    public var bots = 10
    public var bank = "world-capitals"
    /// Stop after this long (seconds), or after `duels` duels, whichever comes first.
    public var durationSeconds: Double = 30
    public var duels: Int?
    /// Think time, accuracy and skips.
    public var play = PlayStyle()
    /// How the run starts: connections per second, and when its steady part begins.
    public var start = Start()
    /// Only connect, sign up and stay idle (the connections scenario).
    public var idle = false
    public var runID = String(UInt32.random(in: 0...UInt32.max), radix: 36)
    /// Session tokens to `auth` with instead of signing up (bot i uses token i), so that
    /// thousands of bots do not wait for thousands of deliberately slow Argon2id hashes.
    public var tokens: [String] = []
    /// Reconnect on any drop, sign in again with the session token and `resume` the duel
    /// from the last seq seen (the drills: `bench/drills`).
    public var reconnect = false
    /// Play in rooms of this many bots instead of the ranked queue: bot `i` is in room
    /// `i / roomSize`, whose first bot creates it and starts every game (the next one as
    /// soon as a game completes). 1 plays practice games alone.
    public var roomSize: Int?
    public init() {}

    /// Issue 26's far players: every odd-numbered bot connects through a ``DelayProxy`` that
    /// holds each byte back this long (ms, each way; 0: every bot is direct). The proxy connects
    /// from `127.0.0.2`, which the server must list as a trusted proxy to credit the delay.
    public var farDelayMs: Int {
        get { play.farDelayMs }
        set { play.farDelayMs = newValue }
    }

    /// Whether bot `index` plays through the delaying proxy.
    public func isFar(_ index: Int) -> Bool { farDelayMs > 0 && index % 2 == 1 }

    public var thinkMs: ClosedRange<Int> {
        get { play.thinkMs }
        set { play.thinkMs = newValue }
    }

    public var accuracy: Double {
        get { play.accuracy }
        set { play.accuracy = newValue }
    }

    public var skipRate: Double {
        get { play.skipRate }
        set { play.skipRate = newValue }
    }
}

/// How a bot answers the questions of a duel.
public struct PlayStyle: Sendable {
    /// Think time before answering, uniformly drawn in this range (ms).
    public var thinkMs: ClosedRange<Int> = 0...0
    /// Chance of answering with the correct choice when the bots know it (they learn it from reveals).
    public var accuracy = 0.7
    /// Chance of not answering a question at all (so that deadlines reveal some questions).
    public var skipRate = 0.0
    /// How far away the odd-numbered bots play (``BotConfiguration/farDelayMs``).
    public var farDelayMs = 0

    public init() {}
}

/// A think-time spec: `0`, `500`, or `500..4000`.
public func parseThink(_ text: String) -> ClosedRange<Int>? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: true)
    if parts.count == 1, let value = Int(parts[0]) { return value...value }
    if parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]), low <= high { return low...high }
    return nil
}

/// How a run starts (``BotConfiguration/start``).
public struct Start: Sendable {
    /// New connections per second.
    public var rampPerSecond = 200.0
    /// Seconds after the start from which latencies are also reported on their own (`steady`
    /// in the report), leaving out the ramp's burst of sign-ins and first queueing; nil: no such
    /// figures.
    public var warmupSeconds: Double?
}
