import DuelCore

/// `banks` needs no sign-in, so anyone can flood it: answers come from a copy at most
/// `maxAgeMs` old, and one database read serves every request that arrived while it ran.
/// Pure bookkeeping; the core runs the read and sends the replies.
struct BanksCache {
    let maxAgeMs: Int64
    private var copy: (atMs: Int64, data: JSONObject)?
    private var waiting: [(connection: UInt64, ref: RequestRef?)] = []

    init(maxAgeMs: Int64 = 2_000) {
        self.maxAgeMs = maxAgeMs
    }

    enum Lookup: Equatable {
        /// Reply with this at once.
        case fresh(JSONObject)
        /// Wait for a read; `startRead` for the first waiter only.
        case wait(startRead: Bool)
    }

    mutating func lookup(connection: UInt64, ref: RequestRef?, nowMs: Int64) -> Lookup {
        if let copy, nowMs - copy.atMs < maxAgeMs { return .fresh(copy.data) }
        waiting.append((connection, ref))
        return .wait(startRead: waiting.count == 1)
    }

    /// The read finished (nil: it failed): keeps a successful result and hands back the
    /// waiters to answer.
    mutating func finished(_ data: JSONObject?, nowMs: Int64) -> [(connection: UInt64, ref: RequestRef?)] {
        if let data { copy = (nowMs, data) }
        defer { waiting = [] }
        return waiting
    }
}
