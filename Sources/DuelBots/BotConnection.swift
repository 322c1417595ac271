import DuelClient
import DuelCore

/// A bot's side of its connection: the client, the bytes of its next request, and the
/// requests that wait for a reply, by ref.
///
/// A value in its ``Bot``: the bot sets each request's timeout (a timer must capture the
/// bot, which outlives it) and reads the replies. Frequent requests are written into
/// ``writer``, whose buffer is reused (``RequestWriter``); the rare ones are JSON values.
struct BotConnection {
    private(set) var client: DuelClient?
    /// The bot is in the `connected` gauge (from the connection's open to its close or drop).
    var isCounted = false
    var writer = RequestWriter()
    private var nextRef = 0
    private var pending: [Int: BotRequest] = [:]

    /// A new connection to `url` (the last one, if any, is closed or closing); false when
    /// the client could not be made.
    mutating func open(url: String, loop: ClientLoop, handler: any DuelClientHandler) -> Bool {
        guard let client = try? DuelClient(url: url, loop: loop, handler: handler) else { return false }
        self.client = client
        client.open()
        return true
    }

    /// Open and not closing.
    var isOpen: Bool { client?.isClosed == false }

    /// Keeps `request` until its reply; returns the ref to send it with.
    mutating func add(_ request: BotRequest) -> Int {
        nextRef += 1
        pending[nextRef] = request
        return nextRef
    }

    /// The request `ref` replies to (or timed out), if it is still waited for.
    mutating func take(_ ref: Int?) -> BotRequest? {
        ref.flatMap { pending.removeValue(forKey: $0) }
    }

    /// No reply is waited for any more (the connection is gone).
    mutating func forgetRequests() {
        pending.removeAll()
    }

    /// A `queue` request waits for its reply.
    var awaitsQueueReply: Bool {
        pending.values.contains { if case .queue = $0 { true } else { false } }
    }

    /// Sends what ``writer`` holds.
    func sendWritten() {
        writer.bytes.withUnsafeBytes { client?.sendFromLoop($0) }
    }

    func send(_ message: JSONValue) {
        Array(message.serialized.utf8).withUnsafeBytes { client?.sendFromLoop($0) }
    }

    func close() {
        client?.closeFromLoop()
    }
}
