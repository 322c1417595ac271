/// The open WebSockets by their per-session slot (the id lws keeps in the session's user data).
struct ConnectionSlots {
    var byID: [UInt64: (connection: Connection, wsi: OpaquePointer)] = [:]
    /// Connections given their first queued message in this turn of the loop, to be written at
    /// its end (``LWSServer/flushQueued()``), in the order they were given it.
    var unflushed: [UInt64] = []
    private var last: UInt64 = 0

    mutating func nextID() -> UInt64 {
        last += 1
        return last
    }
}
