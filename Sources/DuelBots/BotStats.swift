import DuelCore
import Foundation
import Histogram
import Synchronization

/// Counters and latency histograms shared by every bot of a run.
///
/// One lock for all of it: a bot's frame touches several of these at once (a reveal
/// records lateness, learns the answer and forgets a sent time), and one uncontended lock
/// costs less than several.
public final class BotStats: Sendable {
    struct State {
        /// Where the bots are now (the progress line).
        var gauges = Gauges()
        var answers = 0
        /// Answers the server accepted (`ok` replies), as "duel-id:question-index".
        var acknowledged: [String] = []
        var reconnects = 0
        /// Failures by code: every `error` reply the bots did not expect (a refused signup,
        /// login, auth, queue, room request or answer, or an unsolicited error) by the server's
        /// code, and what had no reply (`connect_failed`, `login_failed`, `duel_timeout`, ...).
        var errors: [String: Int] = [:]
        /// `error` replies that are part of the game or of stopping (``BotRequest/expects(_:)``).
        var expectedRefusals: [String: Int] = [:]
        /// Broken rules by name (``RuleBreaks``).
        var violations: [String: Int] = [:]
        var latencies = Latencies()
        /// The same figures from the end of the warm-up on (``BotConfiguration/warmupSeconds``).
        var steady: Latencies?
        /// When each answer was sent, for the opponent's `answered` latency (µs).
        var sentAt: [SentAnswerKey: UInt64] = [:]
        /// Correct choices learned from reveals, by question id.
        var knowledge: [Int64: Int] = [:]
        /// With far players (``BotConfiguration/farDelayMs``): who is far, and the questions won
        /// by each side in duels of a far player against a near one.
        var races = Races()

        /// Records a latency (µs) in the run's figures, and in the steady ones once they started.
        mutating func record(_ figure: Latencies.Figure, _ micros: UInt64) {
            latencies[keyPath: figure].record(micros)
            steady?[keyPath: figure].record(micros)
        }
    }

    /// Issue 26's fairness figures: which players are far, and the questions each side won
    /// against the other.
    struct Races {
        var farPlayers: Set<UInt64> = []
        var farWins = 0
        var nearWins = 0
    }

    /// Bots connected, queued (or waiting for a room's game), and playing.
    struct Gauges {
        var connected = 0
        var waiting = 0
        var inDuel = 0
    }

    /// The report's latency figures (µs).
    struct Latencies {
        typealias Figure = WritableKeyPath<Latencies, Histogram<UInt64>>

        var timeToMatch = Self.histogram()
        var answerToReply = Self.histogram()
        var answerToOpponent = Self.histogram()
        var revealLateness = Self.histogram()
        /// With far players (issue 26), the same reveals' lateness apart for near and far bots:
        /// a far bot's includes the proxy's own lateness in holding bytes back.
        var revealLatenessNear = Self.histogram()
        var revealLatenessFar = Self.histogram()

        private static func histogram() -> Histogram<UInt64> {
            Histogram(highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        }
    }

    let state = Mutex(State())
    /// The duels counted, and the shares that keep `--duels` exact.
    let tally: DuelTally
    /// The games bots were still playing when the run ended, by duel id (the first of its bots
    /// to stop says the last seq it saw, the index of the last question it answered, -1 for
    /// none, and how long since its last frame), so that a run that ran to its deadline says
    /// which games never completed.
    private let unfinished = Mutex<[String: String]>([:])

    public init(duelTarget: Int? = nil) {
        tally = DuelTally(target: duelTarget)
    }

    /// A bot was still playing `duel` when the run ended.
    func unfinished(duel: String, lastSeq: Int, answeredIndex: Int, silentMicros: UInt64) {
        unfinished.withLock {
            if $0[duel] == nil { $0[duel] = "\(duel) seq=\(lastSeq) answered=\(answeredIndex) silent_ms=\(silentMicros / 1_000)" }
        }
    }

    /// From now on latencies are also recorded in the report's `steady` figures.
    func startSteady() {
        update { $0.steady = Latencies() }
    }

    func update(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
    }

    func error(_ code: String) { update { $0.errors[code, default: 0] += 1 } }
    /// An `error` reply (or an unsolicited error): a refusal the game explains, or an error.
    func refused(_ code: String, expected: Bool) {
        update { expected ? ($0.expectedRefusals[code, default: 0] += 1) : ($0.errors[code, default: 0] += 1) }
    }
    func violation(_ what: String) { update { $0.violations[what, default: 0] += 1 } }
    /// What ``DuelRules`` found wrong in one frame (nothing to lock for when it found nothing).
    func record(_ breaks: RuleBreaks) {
        guard !breaks.isEmpty else { return }
        update { state in breaks.forEach { name, count in state.violations[name, default: 0] += count } }
    }

    /// One progress line.
    public func progress(elapsed: Double) -> String {
        let duels = tally.counted
        return state.withLock { s in
            "t=\(Int(elapsed))s connected=\(s.gauges.connected) waiting=\(s.gauges.waiting) in_duel=\(s.gauges.inDuel) "
                + "duels=\(duels) answers=\(s.answers) errors=\(s.errors.values.reduce(0, +)) "
                + "violations=\(s.violations.values.reduce(0, +))"
        }
    }

    /// Duels counted so far (see ``DuelTally``).
    public var duelsDone: Int { tally.counted }
    /// The accepted answers, "duel-id:question-index" (with `reconnect`).
    public var acknowledged: [String] { state.withLock { $0.acknowledged } }

    /// The final report as JSON: counts and percentiles in milliseconds, and the bots' own
    /// CPU time per answer (µs; null when unmeasured).
    public func report(configuration: BotConfiguration, elapsed: Double, cpuMicrosPerAnswer: Double? = nil) -> JSONValue {
        let duels = tally.counted
        let pastTarget = tally.pastTarget
        let unfinished = unfinished.withLock { $0.values.sorted() }
        return state.withLock { s in
            func summary(_ h: Histogram<UInt64>) -> JSONValue {
                func ms(_ us: UInt64) -> JSONValue { .double((Double(us) / 10).rounded() / 100) }
                return .object([
                    "count": .int(Int64(h.totalCount)),
                    "p50_ms": ms(h.valueAtPercentile(50)), "p90_ms": ms(h.valueAtPercentile(90)),
                    "p99_ms": ms(h.valueAtPercentile(99)), "max_ms": ms(h.totalCount == 0 ? 0 : h.max),
                ])
            }
            func counts(_ byCode: [String: Int]) -> JSONValue {
                .object(JSONObject(byCode.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) }))
            }
            return .object([
                "bots": .number(configuration.bots),
                "seconds": .double((elapsed * 10).rounded() / 10),
                "duels": .number(duels),
                "duels_target": configuration.duels.map { .number($0) } ?? .null,
                "duels_past_target": .number(pastTarget),
                "answers": .number(s.answers),
                "duels_per_second": .double((Double(duels) / max(elapsed, 0.001) * 10).rounded() / 10),
                "answers_per_second": .double((Double(s.answers) / max(elapsed, 0.001) * 10).rounded() / 10),
                "errors": counts(s.errors),
                "expected_refusals": counts(s.expectedRefusals),
                "violations": counts(s.violations),
                "time_to_match": summary(s.latencies.timeToMatch),
                "answer_to_reply": summary(s.latencies.answerToReply),
                "answer_to_opponent_answered": summary(s.latencies.answerToOpponent),
                "reveal_lateness": summary(s.latencies.revealLateness),
                "steady": s.steady.map { steady in .object([
                    "time_to_match": summary(steady.timeToMatch),
                    "answer_to_reply": summary(steady.answerToReply),
                    "answer_to_opponent_answered": summary(steady.answerToOpponent),
                    "reveal_lateness": summary(steady.revealLateness),
                ]) } ?? .null,
                "cpu_us_per_answer": cpuMicrosPerAnswer.map { .double(($0 * 10).rounded() / 10) } ?? .null,
                "acknowledged_answers": .number(s.acknowledged.count),
                "reconnects": .number(s.reconnects),
                "unfinished_at_end": .object([
                    "count": .number(unfinished.count),
                    "sample": .array(unfinished.prefix(10).map { .string($0) }),
                ]),
                "races": configuration.farDelayMs > 0 ? .object([
                    "far_delay_ms": .number(configuration.farDelayMs),
                    "far_wins": .number(s.races.farWins), "near_wins": .number(s.races.nearWins),
                    "far_share": .double((Double(s.races.farWins) / Double(max(1, s.races.farWins + s.races.nearWins))
                                          * 1_000).rounded() / 1_000),
                    "reveal_lateness_near": summary(s.latencies.revealLatenessNear),
                    "reveal_lateness_far": summary(s.latencies.revealLatenessFar),
                ]) : .null,
            ])
        }
    }
}

/// Microseconds on a monotonic clock shared by every bot of the process.
func nowMicros() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
}

func wallMs() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
}
