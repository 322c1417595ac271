/// One connection's round trip as the server measures it with its own pings (issue 26).
///
/// Robust to the samples a busy loop or a queued write inflates: the mean of the lowest third
/// of the last nine samples. A sample over 600 ms is thrown away (a stall, not the network),
/// as online quiz-bowl buzzers do. Nothing a client says about time is used. Pure.
struct RoundTripEstimate: Equatable {
    static let window = 9
    static let discardAboveMs = 600.0

    private(set) var samples: [Double] = []

    mutating func add(_ sampleMs: Double) {
        guard sampleMs >= 0, sampleMs <= Self.discardAboveMs else { return }
        samples.append(sampleMs)
        if samples.count > Self.window { samples.removeFirst(samples.count - Self.window) }
    }

    /// Nil before the first kept sample.
    var estimateMs: Double? {
        guard !samples.isEmpty else { return nil }
        let lowest = samples.sorted().prefix((samples.count + 2) / 3)
        return lowest.reduce(0, +) / Double(lowest.count)
    }
}
