/// How much credit a player's answers get: the lag the server reports to their duel (issue 26,
/// ``DuelCore/DuelInput/lag(player:lagMs:atMs:)``). Pure.
///
/// The lag is the connection's measured round trip (``RoundTripEstimate``), capped at
/// `--fair-cap-ms`. On a direct connection the kernel's own estimate for the socket
/// (`TCP_INFO`'s smoothed RTT) bounds it too: the kernel times segments and their ACKs, which a
/// client cannot delay the way it can delay its pongs. Behind a trusted proxy the kernel sees
/// the proxy, so only the cap bounds what a client could gain.
struct LagPolicy: Equatable {
    /// 0 turns compensation off: nothing is measured, no lag is reported, version 1's rules.
    let capMs: Int64

    /// What the kernel's estimate may miss of a real round trip (its ACK path skips the
    /// client's WebSocket layer). Also the most a direct client gains by delaying its pongs.
    static let kernelSlackMs = 2.0
    /// A lag moves the duel's only when it changed by this much: one input per game at most
    /// for a steady connection, none for a near one.
    static let reportStepMs: Int64 = 3

    var isOn: Bool { capMs > 0 }

    /// The credit for a connection whose pings measured `estimateMs`; `kernelRttUs` is the
    /// socket's `tcpi_rtt` on a direct connection, nil behind a trusted proxy (or unreadable).
    func lag(estimateMs: Double, kernelRttUs: UInt32?) -> Int64 {
        var lag = estimateMs
        if let kernelRttUs { lag = min(lag, Double(kernelRttUs) / 1_000 + Self.kernelSlackMs) }
        return Int64(max(0, min(lag, Double(capMs))).rounded(.down))
    }

    /// Whether `lag` should replace `reported`, the lag the duel last heard (0 before any).
    func shouldReport(_ lag: Int64, reported: Int64) -> Bool {
        isOn && abs(lag - reported) >= Self.reportStepMs
    }
}
