/// Several outgoing WebSocket text messages framed into one buffer, so that one `send`
/// carries them all (RFC 6455 §5.2: a server's frames are unmasked, so a frame is a header
/// and the payload as is). lws frames one message per `lws_write`, and each was a system
/// call that also ran the receiving side's TCP path: 5.6 sends per answer at full load.
/// The buffer is handed to lws as raw bytes (its `LWS_WRITE_HTTP` path on a WebSocket
/// connection), which keeps lws's handling of a partly sent buffer.
/// Only valid while the connection has no extension that transforms frames (the server
/// offers none).
struct FrameBatch {
    /// Headroom kept before the first frame: lws wants `LWS_PRE` bytes before any buffer.
    let headroom: Int
    private(set) var bytes: [UInt8]
    private(set) var messages = 0

    init(headroom: Int) {
        self.headroom = headroom
        bytes = [UInt8](repeating: 0, count: headroom)
        bytes.reserveCapacity(headroom + 16_384)
    }

    /// The framed bytes' length (without the headroom).
    var count: Int { bytes.count - headroom }

    /// Starts a new batch, keeping the buffer's capacity.
    mutating func reset() {
        bytes.removeSubrange(headroom...)
        messages = 0
    }

    /// The buffer from its start (headroom included), for `lws_write`.
    mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) -> R) -> R {
        bytes.withUnsafeMutableBytes(body)
    }

    /// Appends one final text frame around `payload`.
    mutating func appendText<C: Collection>(_ payload: C) where C.Element == UInt8 {
        bytes.append(0x81)  // FIN, opcode 1 (text)
        let length = payload.count
        if length < 126 {
            bytes.append(UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(126)
            bytes.append(UInt8(length >> 8))
            bytes.append(UInt8(length & 0xFF))
        } else {
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((UInt64(length) >> UInt64(shift)) & 0xFF)) }
        }
        bytes.append(contentsOf: payload)
        messages += 1
    }
}
