/// One WebSocket connection as the server core sees it. Lives on the lws thread only.
final class Connection {
    let id: UInt64
    let address: String
    /// The authenticated player, once `signup`, `login` or `auth` succeeded.
    var player: String?
    /// Hash of the session token this connection authenticated with (for logout).
    var tokenHash: [UInt8]?
    var limiter: RateLimiter
    /// Messages waiting for the socket to become writable: each event's text, shared by
    /// every connection it goes to.
    var outgoing: [String] = []
    var outgoingHead = 0
    var outgoingBytes = 0
    /// Set when the server decided to close; the close happens at the next writable callback.
    var pendingClose: (code: CloseCode, reason: String)?
    /// Reassembly of a fragmented message.
    var partial: [UInt8] = []
    var partialIsBinary = false
    var isClosed = false
    /// Liveness (see ``Liveness``): when the peer last sent anything, pongs included,
    /// and whether a ping is owed or went out since.
    var lastHeardMs: Int64
    var pinged = false
    var pingDue = false

    init(id: UInt64, address: String, limiter: RateLimiter) {
        self.id = id
        self.address = address
        self.limiter = limiter
        lastHeardMs = Clock.nowMs()
    }

    /// The peer sent something: it is alive, and no ping is outstanding.
    func heard() {
        lastHeardMs = Clock.nowMs()
        pinged = false
    }

    var hasOutgoing: Bool { outgoingHead < outgoing.count }
}
