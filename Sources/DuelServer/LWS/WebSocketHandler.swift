/// What the libwebsockets layer reports to the server, always on the lws thread.
///
/// The server core implements this; nothing here knows about libwebsockets.
protocol WebSocketHandler: AnyObject {
    /// A client asks to upgrade; return false to refuse (origin, per-address cap).
    func shouldAccept(origin: String?, address: String) -> Bool
    func opened(_ connection: Connection)
    /// One complete text message (fragments already joined, size already checked).
    func received(_ connection: Connection, text: [UInt8])
    func closed(_ connection: Connection)
    /// A round-trip ping came back (issue 26): `kernelRttUs` is the socket's own estimate on a
    /// direct connection, nil behind a trusted proxy. The sample is already in the estimate.
    func measured(_ connection: Connection, kernelRttUs: UInt32?)
    /// A plain HTTP GET for `path`.
    func http(path: String) -> HTTPResponse
    /// Other threads posted work (see ``LWSServer/wake()``).
    func wake()
    /// The time asked for with ``LWSServer/wakeUp(atMs:)`` came.
    func timerFired()
}

/// A response to a plain HTTP request.
struct HTTPResponse {
    var status: UInt32
    var contentType: String
    var body: [UInt8]
    /// When set, lws serves this file itself (static files).
    var file: String?

    static func text(_ status: UInt32, _ text: String, type: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, contentType: type, body: Array(text.utf8), file: nil)
    }
}

/// WebSocket close codes the server uses (RFC 6455, 7.4.1).
enum CloseCode: UInt16 {
    case goingAway = 1001
    case unsupportedData = 1003
    case policyViolation = 1008
    case messageTooBig = 1009
    case internalError = 1011
}
