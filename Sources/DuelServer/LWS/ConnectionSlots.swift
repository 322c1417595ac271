/// The open WebSockets by their per-session slot (the id lws keeps in the session's user data).
struct ConnectionSlots {
    var byID: [UInt64: (connection: Connection, wsi: OpaquePointer)] = [:]
    private var last: UInt64 = 0

    mutating func nextID() -> UInt64 {
        last += 1
        return last
    }
}
