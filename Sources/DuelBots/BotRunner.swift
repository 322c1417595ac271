import DuelClient
import DuelCore
import Foundation
import Synchronization

/// Runs a whole bot fleet and returns its report.
public struct BotRunner: Sendable {
    public let configuration: BotConfiguration
    public let stats: BotStats

    public init(configuration: BotConfiguration) {
        self.configuration = configuration
        stats = BotStats(duelTarget: configuration.duels)
    }

    /// Runs every bot until the duration or the duel count is reached: with a count, the run
    /// stops at exactly that many duels, as soon as the last of them completes (``DuelTally``).
    /// `progress` is called about once a second with a status line.
    public func run(progress: (@Sendable (String) -> Void)? = nil) async -> JSONValue {
        let started = ContinuousClock.now
        let deadline = nowMicros() + UInt64(max(0, configuration.durationSeconds) * 1_000_000)
        let target = configuration.duels
        let stats = self.stats
        let tally = stats.tally
        let shouldStop: @Sendable () -> Bool = { tally.reached }
        // One client loop per 5,000 connections keeps each lws thread's poll set moderate.
        let loops = ClientLoop.loops(max(1, (configuration.bots + 4_999) / 5_000))
        let reporter = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                if Task.isCancelled { break }
                progress?(stats.progress(elapsed: (ContinuousClock.now - started).seconds))
            }
        }
        // CPU per answer over the run after ramp-up (plus a second for logins), until the end.
        let rampSeconds = Double(configuration.bots) / max(1, configuration.start.rampPerSecond) + 1
        let meter = CPUMeter(stats: stats)
        let metering = Task {
            try? await Task.sleep(until: started + .milliseconds(Int(rampSeconds * 1_000)))
            if Task.isCancelled { return }
            meter.startWindow()
            try? await Task.sleep(until: started + .milliseconds(Int(configuration.durationSeconds * 1_000)))
            meter.endWindow()
        }
        let warmup = Task {
            guard let seconds = configuration.start.warmupSeconds else { return }
            try? await Task.sleep(until: started + .milliseconds(Int(seconds * 1_000)))
            if !Task.isCancelled { stats.startSteady() }
        }
        let finishedLine = FinishLine(count: configuration.bots)
        let rooms = RoomBoard()
        var run = BotRun(deadline: deadline, shouldStop: shouldStop, finished: finishedLine.finishOne)
        // Far bots go through one proxy that holds every byte back, both ways (issue 26).
        var proxy: DelayProxy?
        if configuration.farDelayMs > 0, let port = configuration.url.split(separator: ":").last?.split(separator: "/").first
            .flatMap({ Int($0) }) {
            proxy = try? DelayProxy(targetPort: port, upMs: configuration.farDelayMs, downMs: configuration.farDelayMs,
                                    sourceAddress: "127.0.0.2")
            run.farURL = proxy.map { "ws://127.0.0.1:\($0.port)/duel" }
        }
        defer { proxy?.stop() }
        let bots = (0..<configuration.bots).map { index in
            Bot(index: index, configuration: configuration, stats: stats, loop: loops[index % loops.count], run: run, rooms: rooms)
        }
        let botsByLoop = loops.indices.map { which in bots.filter { $0.index % loops.count == which } }
        let stopper = Task {
            guard target != nil else { return }
            while !Task.isCancelled && !shouldStop() { try? await Task.sleep(for: .milliseconds(20)) }
            if Task.isCancelled { return }
            for (loop, mine) in zip(loops, botsByLoop) { loop.perform { mine.forEach { $0.stop() } } }
        }
        await finishedLine.wait {
            for (loop, mine) in zip(loops, botsByLoop) {
                loop.perform { [configuration] in
                    for bot in mine {
                        let delay = Double(bot.index) / max(1, configuration.start.rampPerSecond)
                        loop.schedule(afterMicros: UInt64(delay * 1_000_000)) { bot.start() }
                    }
                }
            }
        }
        stopper.cancel()
        reporter.cancel()
        await reporter.value  // no progress line after the report
        metering.cancel()
        warmup.cancel()
        meter.endWindow()
        let elapsed = (ContinuousClock.now - started).seconds
        return stats.report(configuration: configuration, elapsed: elapsed, cpuMicrosPerAnswer: meter.microsPerAnswer)
    }
}

/// What a bot knows of the run it is in: when it ends, whether the fleet has played its
/// duel count, and whom to tell when the bot is done.
struct BotRun: Sendable {
    /// The run's end on ``nowMicros()``'s clock.
    let deadline: UInt64
    /// The fleet reached `--duels` (``DuelTally/reached``).
    let shouldStop: @Sendable () -> Bool
    /// Called once per bot, when it is done (``FinishLine``).
    let finished: @Sendable () -> Void
    /// Where far bots connect: the delaying proxy (``BotConfiguration/farDelayMs``).
    var farURL: String? = nil

    /// Past the deadline, or stopped.
    var isOver: Bool { nowMicros() >= deadline || shouldStop() }
}

/// Counts bots that are done and wakes the runner when all are.
final class FinishLine: Sendable {
    private struct State {
        var remaining: Int
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(remaining: count))
    }

    /// Calls `start`, then returns once every bot has called ``finishOne()``.
    func wait(start: () -> Void) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.remaining <= 0 { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() } else { start() }
        }
    }

    @Sendable func finishOne() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
