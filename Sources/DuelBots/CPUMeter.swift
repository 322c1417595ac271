import Foundation
import Synchronization

/// The bots' own CPU time per answer over a window of the run, so that a load
/// test shows what its load generator costs (`cpu_us_per_answer` in the report).
final class CPUMeter: Sendable {
    private struct Sample {
        let cpuMicros: Int
        let answers: Int
    }

    private let stats: BotStats
    private let window: Mutex<(start: Sample, end: Sample?)>

    /// The window starts now unless ``startWindow()`` moves it (a run shorter than its ramp-up
    /// is measured whole).
    init(stats: BotStats) {
        self.stats = stats
        window = Mutex((start: Self.sample(stats), end: nil))
    }

    func startWindow() {
        let now = Self.sample(stats)
        window.withLock { if $0.end == nil { $0.start = now } }
    }

    /// Ends the window (only the first call counts).
    func endWindow() {
        let now = Self.sample(stats)
        window.withLock { if $0.end == nil { $0.end = now } }
    }

    /// nil when no answer was played in the window.
    var microsPerAnswer: Double? {
        window.withLock { window in
            guard let end = window.end, end.answers > window.start.answers else { return nil }
            return Double(end.cpuMicros - window.start.cpuMicros) / Double(end.answers - window.start.answers)
        }
    }

    /// User plus system time of the whole process: what /proc/self/stat's utime + stime
    /// count, at µs rather than clock-tick resolution.
    private static func sample(_ stats: BotStats) -> Sample {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = (Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec)) * 1_000_000
            + Int(usage.ru_utime.tv_usec) + Int(usage.ru_stime.tv_usec)
        return Sample(cpuMicros: cpu, answers: stats.state.withLock { $0.answers })
    }
}
