/// One WebSocket connection as the server core sees it. Lives on the lws thread only.
final class Connection {
    let id: UInt64
    let address: String
    /// The authenticated player, once `signup`, `login` or `auth` succeeded.
    var player: String?
    /// Hash of the session token this connection authenticated with (for logout).
    var tokenHash: [UInt8]?
    var limiter: RateLimiter
    /// Messages waiting to be written (at the end of the loop's turn, or when the socket is
    /// writable again), and a decided close.
    var sending = SendQueue()
    /// Reassembly of a fragmented message.
    var inbound = Reassembly()
    var isClosed = false
    /// Liveness (see ``Liveness``).
    var liveness: LivenessMarks
    /// Round-trip pings while in a game (issue 26, ``RoundTripProbe``).
    var probe = RoundTripProbe()

    init(id: UInt64, address: String, limiter: RateLimiter) {
        self.id = id
        self.address = address
        self.limiter = limiter
        liveness = LivenessMarks(lastHeardMs: Clock.nowMs())
    }

    /// The peer sent something: it is alive, and no ping is outstanding.
    func heard() {
        liveness.lastHeardMs = Clock.nowMs()
        liveness.pinged = false
    }

    var hasOutgoing: Bool { sending.head < sending.messages.count }

    /// What waits to be written: each event's text, shared by every connection it goes to.
    struct SendQueue {
        var messages: [String] = []
        /// The first message not yet written.
        var head = 0
        /// Bytes queued and not yet written (the slow-reader limit).
        var bytes = 0
        /// Set when the server decided to close; the close happens at the next writable callback.
        var pendingClose: (code: CloseCode, reason: String)?
        /// The peer sent its close: lws echoes it, and nothing more is read or queued (RFC 6455
        /// 5.5.1: a peer sends no data after its close).
        var peerClosed = false
    }

    /// A message arriving in fragments.
    struct Reassembly {
        var bytes: [UInt8] = []
        var isBinary = false
    }

    /// When the peer last sent anything, pongs included, and whether a ping is owed or went
    /// out since.
    struct LivenessMarks {
        var lastHeardMs: Int64
        var pinged = false
        var pingDue = false
    }
}
