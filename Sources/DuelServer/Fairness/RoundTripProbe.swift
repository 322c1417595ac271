/// One connection's round-trip pings while its player is in a game (issue 26), on the lws
/// thread: which pings are out and when each left, the estimate, and what was reported.
///
/// A ping carries a tag byte and a sequence number; its pong must echo them (RFC 6455 5.5.3),
/// so a pong is matched to its ping without trusting any time the client could write.
/// A pong for an unknown number (forged, or from a ping already dropped) is ignored.
struct RoundTripProbe {
    /// The first payload byte of a round-trip ping (liveness pings carry `Q`).
    static let tag: UInt8 = 0x52
    /// Pings whose pong is still awaited; the oldest goes when a fifth leaves.
    private(set) var out: [(seq: UInt32, sentUs: Int64)] = []
    private var nextSeq: UInt32 = 0
    var estimate = RoundTripEstimate()
    /// The live game whose lag this connection measures; nil outside games.
    var duel: String?
    /// The lag last reported to `duel` (0 until one is).
    var reported: Int64 = 0
    /// A ping should go out at the next writable callback.
    var due = false
    /// The socket's peer is the client (not a trusted proxy): the kernel's RTT bounds the lag.
    var direct = true

    /// The payload of the next ping, remembered as sent at `nowUs`.
    mutating func nextPing(nowUs: Int64) -> [UInt8] {
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
    }
}
