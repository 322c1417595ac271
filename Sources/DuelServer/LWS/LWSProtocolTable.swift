import CLibWebSockets
import Foundation

/// The lws protocol table and retry policy a context points at for its whole life: allocated
/// here, freed in `deinit` (one owner per C allocation). Protocol 0 serves plain HTTP; protocol 1
/// is the duel WebSocket. A client that offers no subprotocol lands on protocol 0 and is
/// upgraded there too.
final class LWSProtocolTable {
    let protocols: UnsafeMutablePointer<lws_protocols>
    let retry: UnsafeMutablePointer<lws_retry_bo_t>
    private let names: [UnsafeMutablePointer<CChar>]

    /// The most one send() carries (see `init`).
    static let txPacketSize = 65_536

    init() {
        names = [strdup("http"), strdup("duel.v1")]
        protocols = .allocate(capacity: 3)
        protocols.initialize(repeating: lws_protocols(), count: 3)
        for index in 0..<2 {
            protocols[index].name = UnsafePointer(names[index])
            protocols[index].callback = lwsCallback
            protocols[index].per_session_data_size = MemoryLayout<UInt64>.size
            // A chunk size, not a message limit (messages are reassembled up to
            // maxMessageBytes): lws allocates it per connection on the first message,
            // so it is most of an idle connection's memory.
            protocols[index].rx_buffer_size = 1_024
            // What one send() may carry. Left at 0, lws caps each send at rx_buffer_size (plus
            // its headroom: 1,044 bytes) and copies the rest of the buffer aside, to go out on
            // later writable callbacks: a batch of two events (an `answered` is about 1 KB) took
            // three sends, six epoll_ctl calls and three loop passes. ``FrameBatch`` bounds a
            // batch near 64 KiB (one message may pass it); the kernel takes what its buffer
            // holds and lws keeps the rest.
            protocols[index].tx_packet_size = Self.txPacketSize
        }
        retry = .allocate(capacity: 1)
        // A policy with no ping and no hangup turns lws's validity timers off; ``Liveness``
        // does that job (see there for why).
        retry.initialize(to: lws_retry_bo_t())
    }

    deinit {
        protocols.deallocate()
        retry.deallocate()
        names.forEach { free($0) }
    }
}
