/// One connection's round-trip pings while its player is in a game (issue 26), on the lws
/// thread: which pings are out and when each left, the estimate, and what was reported.
///
/// A ping carries a tag byte and a sequence number; its pong must echo them (RFC 6455 5.5.3),
/// so a pong is matched to its ping without trusting any time the client could write.
/// A pong for an unknown number (forged, or from a ping already dropped) is ignored.
///
/// How often: every second while in a game, until three samples show the connection is near
/// (under ``nearMs``, a round trip no lag report would change); a near connection is not pinged
/// again. A player whose network changes (Wi-Fi to mobile) comes back on a new connection,
/// which is measured afresh. Pinging everyone every second cost the server and the clients a
/// ping and a pong six times per answer at human pace, and at 10,000 players p99s of 124 ms
/// instead of 28 with pings every five seconds for near players (bench/NOTES.md, item 30).
struct RoundTripProbe {
    /// Below this a round trip earns no credit worth reporting (``LagPolicy/reportStepMs``).
    static let nearMs = 3.0
    static let intervalUs: Int64 = 1_000_000
    /// The first payload byte of a round-trip ping (liveness pings carry `Q`).
    static let tag: UInt8 = 0x52
    /// Pings whose pong is still awaited; the oldest goes when a fifth leaves.
    private(set) var out: [(seq: UInt32, sentUs: Int64)] = []
    private var nextSeq: UInt32 = 0
    private(set) var estimate = RoundTripEstimate()
    /// The live game whose lag this connection measures; nil outside games.
    var duel: String?
    /// The lag last reported to `duel` (0 until one is).
    var reported: Int64 = 0
    /// A ping should go out at the next writable callback.
    var due = false
    /// When the next ping is due (monotonic µs); 0 until the first is planned.
    private(set) var nextPingUs: Int64 = 0
    /// The socket's peer is the client (not a trusted proxy): the kernel's RTT bounds the lag.
    var direct = true

    /// Whether a ping should be asked for at the sweep's look at `lookUs` (in a game, none
    /// waiting to be written). The sweep looks at a connection once per ``intervalUs``, so a ping
    /// due before the next look is due now: a ping written late (a slow writable callback) keeps
    /// its second instead of waiting for the look after. The first of a game is due at the
    /// game's first look (the sweep spreads its looks over its ticks by connection number).
    func wantsPing(lookUs: Int64) -> Bool {
        guard duel != nil, !due, !isNear else { return false }
        return nextPingUs == 0 || nextPingUs < lookUs + Self.intervalUs
    }

    /// The socket's lowest round trip as the kernel saw it at the last pong (µs); nil behind a
    /// trusted proxy, where it is the proxy's.
    private(set) var kernelRttUs: UInt32?

    /// Three samples or more, and a round trip too short to credit. The kernel's bound counts,
    /// as it does for the lag (``LagPolicy/lag(estimateMs:kernelRttUs:)``): a busy loop on either
    /// side stretches the pings of a client next door, not its socket's round trip.
    /// Kept, not computed when asked: the sweep once asked for every connection ten times a
    /// second (now once), and sorting each one's samples there was 5 % of the server's CPU at human pace with
    /// 4,000 players (bench/NOTES.md item 35); it changes only with a sample.
    private(set) var isNear = false

    /// A pong's round trip (`sampleMs`, from ``pong(_:nowUs:)``) and the kernel's at that moment.
    mutating func record(_ sampleMs: Double, kernelRttUs: UInt32?) {
        estimate.add(sampleMs)
        self.kernelRttUs = kernelRttUs
        guard estimate.samples.count >= 3, var creditable = estimate.estimateMs else {
            isNear = false
            return
        }
        if let kernelRttUs { creditable = min(creditable, Double(kernelRttUs) / 1_000 + LagPolicy.kernelSlackMs) }
        isNear = creditable < Self.nearMs
    }

    /// The payload of the next ping, remembered as sent at `nowUs`.
    mutating func nextPing(nowUs: Int64) -> [UInt8] {
        nextPingUs = nowUs + Self.intervalUs
        nextSeq &+= 1
        out.append((nextSeq, nowUs))
        if out.count > 4 { out.removeFirst() }
        return [Self.tag, UInt8(nextSeq >> 24), UInt8((nextSeq >> 16) & 0xff), UInt8((nextSeq >> 8) & 0xff),
                UInt8(nextSeq & 0xff)]
    }

    /// The round trip in ms a pong with `payload` closes, or nil when it answers no ping out.
    mutating func pong(_ payload: UnsafeRawBufferPointer, nowUs: Int64) -> Double? {
        guard payload.count == 5, payload[0] == Self.tag else { return nil }
        let seq = UInt32(payload[1]) << 24 | UInt32(payload[2]) << 16 | UInt32(payload[3]) << 8 | UInt32(payload[4])
        guard let at = out.firstIndex(where: { $0.seq == seq }) else { return nil }
        let sent = out[at].sentUs
        out.removeSubrange(...at)
        return Double(nowUs - sent) / 1_000
    }

    /// The game is over (or another began): its measurements stay, its report starts over.
    mutating func measure(_ game: String?) {
        guard game != duel else { return }
        duel = game
        reported = 0
        nextPingUs = 0
    }
}
