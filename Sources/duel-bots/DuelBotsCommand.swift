import ArgumentParser
import DuelBots
import DuelCore
import Foundation

/// `duel-bots`: load-test bots that play real duels against a server.
///
/// The JSON report goes to stdout, progress lines and a short human summary to stderr.
/// How the figures are counted (see `DuelTally` and `BotStats`):
/// - a duel (ranked duel, room game or practice game) counts once, when the first of the
///   run's bots in it sees its `complete` event, deduplicated by duel id; `--duels N` stops the
///   run at exactly N: no duel is started past what N still needs, and the run ends as soon as
///   the N-th completes;
/// - `errors` counts, by the server's code, every `error` reply the bots did not expect (a
///   refused signup, login, auth, queue, room request or answer, or an unsolicited error) and
///   what had no reply (`connect_failed`, `login_failed`, `duel_timeout`, ...); refusals that
///   are part of the game or of stopping are in `expected_refusals` instead.
@main
struct DuelBotsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duel-bots",
        abstract: "Load-test bots: sign up, queue (or fill rooms, or practise), play by the rules, again; report latencies and violations.",
        discussion: """
            The JSON report goes to stdout; progress lines and a short summary go to stderr.

            A duel (ranked duel, room game or practice game) is counted once, when the first of \
            this run's bots in it sees its `complete` event (deduplicated by duel id). With \
            --duels N the run stops at exactly N counted duels: the bots start no duel past what N \
            still needs, and the run ends as soon as the N-th completes (a duel still in play then \
            is forfeited).

            `errors` counts, by the server's error code, every refused request (signup, login, \
            auth, queue, room, answer; `rate_limited` each time the password-check queue refuses \
            a signup, which is then retried) and unsolicited errors, plus failures without a reply \
            (connect_failed, login_failed, queue_failed, duel_timeout). Refusals that are part of \
            the game or of stopping (an answer `locked_out`, `too_late` or `duel_over`; the last \
            cancel's `not_queued`; `duel_over` for the last forfeit or that of a duel \
            left over from an earlier run) are in `expected_refusals`.
            """)

    @Option(help: "Server WebSocket URL.") var url = "ws://127.0.0.1:8080/duel"
    @Option(help: "Number of bots.") var bots = 10
    @Option(help: "Bank slug to queue for.") var bank = "world-capitals"
    @Option(help: "Stop after this many seconds.") var duration: Double = 30
    @Option(help: "Stop at exactly this many duels (or at --duration, whichever comes first); each duel is counted once, by the first of its bots to see it complete.")
    var duels: Int?
    @OptionGroup var play: PlayOptions
    @OptionGroup var start: StartOptions
    @Flag(help: "Only connect and sign up, then stay idle (connection scenario).") var idle = false
    @OptionGroup var drills: DrillOptions
    @Option(help: "File of session tokens, one per line: bots authenticate with them instead of signing up.")
    var tokens: String?
    @Option(name: .customLong("room-size"), help: "Play in rooms of this many bots (2-4) instead of the queue; 1 plays practice.")
    var roomSize: Int?
    @Flag(help: "Print the final report as JSON only (no progress lines or summary on stderr).") var json = false

    func run() async throws {
        guard let thinkRange = parseThink(play.think) else { throw ValidationError("--think: use 0, 500 or 500..4000") }
        var config = BotConfiguration()
        config.url = url
        config.bots = bots
        config.bank = bank
        config.durationSeconds = duration
        config.duels = duels
        config.play.thinkMs = thinkRange
        config.play.accuracy = play.accuracy
        config.play.skipRate = play.skip
        config.start.rampPerSecond = start.ramp
        if let warmup = start.warmup, warmup < 0 { throw ValidationError("--warmup: 0 or more seconds") }
        config.start.warmupSeconds = start.warmup
        config.idle = idle
        guard (0...5_000).contains(play.farDelayMs) else { throw ValidationError("--far-delay-ms: 0 to 5000") }
        config.farDelayMs = play.farDelayMs
        config.reconnect = drills.reconnect
        if let duels, duels < 1 { throw ValidationError("--duels: at least 1") }
        if let roomSize {
            guard (1...4).contains(roomSize) else { throw ValidationError("--room-size: 1 to 4") }
            config.roomSize = roomSize
        }
        if let tokens {
            config.tokens = try String(contentsOfFile: tokens, encoding: .utf8).split(separator: "\n").map(String.init)
        }
        let quiet = json
        let runner = BotRunner(configuration: config)
        let report = await runner.run { line in
            if !quiet { FileHandle.standardError.write(Data((line + "\n").utf8)) }
        }
        if let acknowledged = drills.acknowledged {
            let lines = runner.stats.acknowledged.joined(separator: "\n")
            try Data((lines.isEmpty ? "" : lines + "\n").utf8).write(to: URL(fileURLWithPath: acknowledged))
        }
        print(report.serialized)
        if !quiet { FileHandle.standardError.write(Data((BotSummary.text(report) + "\n").utf8)) }
        let violations: Int = {
            if case .object(let object)? = report["violations"] { return object.pairs.count }
            return 0
        }()
        if violations > 0 { throw ExitCode(2) }
    }
}

/// How the bots answer: `--think`, `--accuracy`, `--skip` (``PlayStyle``).
struct PlayOptions: ParsableArguments {
    @Option(name: .customLong("far-delay-ms"), help: "Odd-numbered bots connect through a proxy that delays every byte this many ms each way, pongs included; it connects from 127.0.0.2, which the server should trust as a proxy (--trusted-proxy 127.0.0.2). The report's `races` counts the questions far and near bots won from each other. Default 0 (all direct).")
    var farDelayMs = 0
    @Option(help: "Think time before answering in ms: 0, 500, or 500..4000.") var think = "0"
    @Option(help: "Chance of answering correctly once a question's answer is known (bots learn from reveals).")
    var accuracy = 0.7
    @Option(help: "Chance of leaving a question unanswered (lets deadlines reveal some questions).") var skip = 0.0
}

/// How the run starts: `--ramp` and `--warmup` (``Start``).
struct StartOptions: ParsableArguments {
    @Option(help: "New connections per second.") var ramp = 200.0
    @Option(help: "Seconds after which latencies are also reported apart (`steady`), without the ramp's burst.")
    var warmup: Double?
}

/// The drills' options (`bench/drills`): reconnecting, and the answers the server accepted.
struct DrillOptions: ParsableArguments {
    @Flag(help: "Reconnect on any drop, sign in again and resume the duel from the last seq (drills).") var reconnect = false
    @Option(help: "With --reconnect: write the accepted answers (duel-id:question-index per line) here.")
    var acknowledged: String?
}
