import DuelClient
import DuelCore
import Foundation
import Synchronization

/// Runs a whole bot fleet and returns its report.
public struct BotRunner: Sendable {
    public let configuration: BotConfiguration
    public let stats = BotStats()

    public init(configuration: BotConfiguration) {
        self.configuration = configuration
    }

    /// Runs every bot until the duration or the duel count is reached.
    /// `progress` is called about once a second with a status line.
    public func run(progress: (@Sendable (String) -> Void)? = nil) async -> JSONValue {
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int(configuration.durationSeconds * 1_000))
        let target = configuration.duels
        let stats = self.stats
        let shouldStop: @Sendable () -> Bool = { target.map { stats.duelsDone >= $0 } ?? false }
        // One client loop per 5,000 connections keeps each lws thread's poll set moderate.
        let loops = ClientLoop.loops(max(1, (configuration.bots + 4_999) / 5_000))
        let reporter = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                progress?(stats.progress(elapsed: (ContinuousClock.now - started).seconds))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<configuration.bots {
                let delay = Double(index) / max(1, configuration.rampPerSecond)
                let bot = Bot(index: index, configuration: configuration, stats: stats, loop: loops[index % loops.count])
                group.addTask {
                    if delay > 0 { try? await Task.sleep(for: .milliseconds(Int(delay * 1_000))) }
                    await bot.run(until: deadline, shouldStop: shouldStop)
                }
            }
        }
        reporter.cancel()
        let elapsed = (ContinuousClock.now - started).seconds
        return stats.report(configuration: configuration, elapsed: elapsed)
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
