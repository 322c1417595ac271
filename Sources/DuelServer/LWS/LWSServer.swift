import CLibWebSockets
import Foundation
import Logging
import Synchronization

/// The libwebsockets server: one context, one service thread, one callback.
///
/// Everything here runs on the service thread except ``wake()`` and ``stop()``,
/// the only calls other threads may make (lws_cancel_service is the one
/// thread-safe lws entry point in Debian's single-threaded build).
final class LWSServer: @unchecked Sendable, Transport {
    struct Limits {
        var maxMessageBytes: Int
        var maxOutgoingBytes: Int
        var pingAfterSeconds: UInt16
        var hangupAfterSeconds: UInt16
        var trustedProxies: Set<String> = []
    }

    private var context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let retry: UnsafeMutablePointer<lws_retry_bo_t>
    private let names: [UnsafeMutablePointer<CChar>]
    private var thread: Thread?
    /// The libev loop the service thread runs (see the shim: epoll instead of poll()).
    private let loop: UnsafeMutableRawPointer
    /// The one timer on the loop, armed for the handler's earliest deadline.
    private var timer: UnsafeMutableRawPointer?
    private var timerDueMs = Int64.max
    /// A second timer, every second: the liveness sweep.
    private var sweepTimer: UnsafeMutableRawPointer?
    private let liveness: Liveness
    private let stopping = Mutex(false)
    private let stopped = DispatchSemaphore(value: 0)
    let limits: Limits
    let logger: Logger
    /// Given by ``start(handler:)``: nothing calls it before the loop runs.
    private unowned(unsafe) var handler: (any WebSocketHandler)?
    /// Connections by their per-session slot, on the lws thread.
    fileprivate var connections: [UInt64: (connection: Connection, wsi: OpaquePointer)] = [:]
    fileprivate var nextID: UInt64 = 1
    /// The writable callback's framing buffer, reused (lws thread only).
    fileprivate var batch = FrameBatch(headroom: Int(quizduel_lws_pre()))

    init(host: String, port: Int, limits: Limits, logger: Logger) throws {
        self.limits = limits
        self.logger = logger
        names = [strdup("http"), strdup("duel.v1")]
        protocols = .allocate(capacity: 3)
        protocols.initialize(repeating: lws_protocols(), count: 3)
        // Protocol 0 serves plain HTTP; protocol 1 is the duel WebSocket. A client
        // that offers no subprotocol lands on protocol 0 and is upgraded there too.
        for index in 0..<2 {
            protocols[index].name = UnsafePointer(names[index])
            protocols[index].callback = lwsCallback
            protocols[index].per_session_data_size = MemoryLayout<UInt64>.size
            // A chunk size, not a message limit (messages are reassembled up to
            // maxMessageBytes): lws allocates it per connection on the first message,
            // so it is most of an idle connection's memory.
            protocols[index].rx_buffer_size = 1_024
        }
        retry = .allocate(capacity: 1)
        // A policy with no ping and no hangup turns lws's validity timers off; ``Liveness``
        // does that job (see there for why).
        retry.initialize(to: lws_retry_bo_t())
        liveness = Liveness(pingAfterMs: Int64(limits.pingAfterSeconds) * 1_000,
                            hangupAfterMs: Int64(limits.hangupAfterSeconds) * 1_000)
        // lws logs notices to stderr by default; the server logs what matters itself.
        lws_set_log_level(Int32(LLL_ERR | LLL_WARN), nil)
        guard let loop = quizduel_ev_loop_new() else { throw ServerError.startup("cannot create an event loop") }
        self.loop = loop
        let created = host.withCString { interface in
            quizduel_lws_create_context(
                Int32(port), host.isEmpty ? nil : interface, protocols, retry,
                Unmanaged.passUnretained(self).toOpaque(), 16_384, loop)
        }
        guard let created else {
            quizduel_ev_loop_destroy(loop)
            throw ServerError.startup("cannot listen on \(host.isEmpty ? "*" : host):\(port) (in use or not permitted)")
        }
        context = created
    }

    deinit {
        protocols.deallocate()
        retry.deallocate()
        names.forEach { free($0) }
    }

    /// Runs the service loop on a thread of its own until ``stop()``, reporting to `handler`.
    func start(handler: any WebSocketHandler) {
        self.handler = handler
        sweepTimer = quizduel_ev_timer_new(lwsSweepFired, Unmanaged.passUnretained(self).toOpaque())
        if let sweepTimer { quizduel_ev_timer_arm(loop, sweepTimer, 1) }
        let thread = Thread { [self] in
            // Returns when the wake-up that sees `stopping` breaks the loop.
            quizduel_ev_run(loop)
            stopped.signal()
        }
        thread.name = "lws"
        thread.start()
        self.thread = thread
    }

    /// Calls ``WebSocketHandler/timerFired()`` at `dueMs` (server clock) or soon
    /// after, unless an earlier wake-up is already armed. On the lws thread.
    func wakeUp(atMs dueMs: Int64) {
        guard dueMs < timerDueMs, context != nil else { return }
        if timer == nil { timer = quizduel_ev_timer_new(lwsTimerFired, Unmanaged.passUnretained(self).toOpaque()) }
        guard let timer else { return }
        timerDueMs = dueMs
        quizduel_ev_timer_arm(loop, timer, Double(dueMs - Clock.nowMs()) / 1_000)
    }

    fileprivate func timerFired() {
        timerDueMs = .max
        handler?.timerFired()
    }

    /// Asks the service thread to call ``WebSocketHandler/wake()``. Any thread.
    func wake() {
        if let context { lws_cancel_service(context) }
    }

    /// Closes every client with 1001 and stops the loop. Any thread; returns when stopped.
    func stop() {
        // The close frames go out on the service thread; give them a moment.
        closeAllRequested.withLock { $0 = true }
        wake()
        Thread.sleep(forTimeInterval: 0.3)
        stopping.withLock { $0 = true }
        wake()
        stopped.wait()
        lws_context_destroy(context)
        context = nil
        if let timer { quizduel_ev_timer_free(loop, timer) }
        timer = nil
        if let sweepTimer { quizduel_ev_timer_free(loop, sweepTimer) }
        sweepTimer = nil
        quizduel_ev_loop_destroy(loop)
    }

    private let closeAllRequested = Mutex(false)

    /// Pings the connections that went quiet and drops those that stayed quiet. Once a
    /// second on the lws thread; a ping goes out at the connection's next writable callback.
    fileprivate func sweep() {
        let now = Clock.nowMs()
        for (connection, wsi) in connections.values where !connection.isClosed {
            switch liveness.verdict(lastHeardMs: connection.lastHeardMs, pinged: connection.pinged, nowMs: now) {
            case .alive:
                break
            case .ping:
                connection.pinged = true
                connection.pingDue = true
                lws_callback_on_writable(wsi)
            case .hangUp:
                // A peer this quiet will not read a close frame: drop the socket.
                lws_set_timeout(wsi, PENDING_TIMEOUT_WS_PONG_CHECK_GET_PONG, LWS_TO_KILL_ASYNC)
            }
        }
        if let sweepTimer { quizduel_ev_timer_arm(loop, sweepTimer, 1) }
    }

    // MARK: - Used by the handler, on the lws thread

    /// Queues a text message; closes the connection when a slow reader lets too much pile up.
    func send(_ connection: Connection, _ text: String) {
        guard !connection.isClosed, connection.pendingClose == nil,
              let wsi = connections[connection.id]?.wsi else { return }
        connection.outgoingBytes += text.utf8.count
        if connection.outgoingBytes > limits.maxOutgoingBytes {
            connection.outgoing.removeAll()
            connection.outgoingHead = 0
            close(connection, .policyViolation, "too slow to read")
            return
        }
        // The writable callback asks again while messages remain: only the first needs asking.
        if !connection.hasOutgoing { lws_callback_on_writable(wsi) }
        connection.outgoing.append(text)
    }

    /// Closes with `code` once the queued messages are out.
    func close(_ connection: Connection, _ code: CloseCode, _ reason: String) {
        guard connection.pendingClose == nil, let wsi = connections[connection.id]?.wsi else { return }
        connection.pendingClose = (code, reason)
        lws_callback_on_writable(wsi)
    }

    // MARK: - The callback, on the lws thread

    fileprivate func callback(
        _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if closeAllRequested.withLock({ requested in defer { requested = false }; return requested }) {
                for (connection, _) in connections.values { close(connection, .goingAway, "server shutting down") }
            }
            if stopping.withLock({ $0 }) {
                quizduel_ev_break_all(loop)
                return 0
            }
            handler?.wake()
            return 0

        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // The upgrade is decided here, never in HTTP_CONFIRM_UPGRADE (CVE-2025-11677).
            let origin = header(wsi, WSI_TOKEN_ORIGIN)
            return handler?.shouldAccept(origin: origin, address: clientAddress(wsi)) == true ? 0 : 1

        case LWS_CALLBACK_ESTABLISHED:
            let id = nextID
            nextID += 1
            user?.storeBytes(of: id, as: UInt64.self)
            let connection = Connection(id: id, address: clientAddress(wsi), limiter: RateLimiter())
            connections[id] = (connection, wsi!)
            handler?.opened(connection)
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let connection = connection(user) else { return -1 }
            // Any message counts as liveness, not only PONGs.
            connection.heard()
            if lws_is_first_fragment(wsi) != 0 {
                connection.partial.removeAll(keepingCapacity: true)
                connection.partialIsBinary = lws_frame_is_binary(wsi) != 0
            }
            if connection.partialIsBinary {
                return closeNow(wsi, .unsupportedData, "binary frames are not accepted")
            }
            if connection.partial.count + length > limits.maxMessageBytes {
                return closeNow(wsi, .messageTooBig, "message larger than \(limits.maxMessageBytes) bytes")
            }
            if let input, length > 0 {
                connection.partial.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            if lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0 {
                let message = connection.partial
                connection.partial = []
                handler?.received(connection, text: message)
            }
            return 0

        case LWS_CALLBACK_RECEIVE_PONG:
            connection(user)?.heard()
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = connection(user) else { return -1 }
            if connection.pingDue {
                connection.pingDue = false
                // One byte of payload: lws 4.1.6 reports only non-empty pongs (RECEIVE_PONG).
                let pre = quizduel_lws_pre()
                var frame = [UInt8](repeating: 0, count: pre + 1)
                frame[pre] = 0x51
                let sent = frame.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, 1, LWS_WRITE_PING) }
                if sent < 0 { return -1 }
                if lws_partial_buffered(wsi) != 0 {
                    lws_callback_on_writable(wsi)
                    return 0
                }
            }
            // Every queued message (up to a bound) goes out framed in one buffer and one send;
            // see ``FrameBatch``. Messages are queued as the shared text of each event (no copy
            // per recipient), and framing copies each once into the reused buffer.
            if connection.hasOutgoing {
                batch.reset()
                while connection.hasOutgoing && batch.messages < 64 && batch.count < 65_536 {
                    let message = connection.outgoing[connection.outgoingHead]
                    connection.outgoingHead += 1
                    connection.outgoingBytes -= message.utf8.count
                    batch.appendText(message.utf8)
                }
                if connection.outgoingHead == connection.outgoing.count {
                    connection.outgoing.removeAll(keepingCapacity: connection.outgoing.count < 64)
                    connection.outgoingHead = 0
                }
                let pre = batch.headroom
                let count = batch.count
                let sent = batch.withUnsafeMutableBytes { buffer in
                    lws_write(wsi, buffer.baseAddress! + pre, count, LWS_WRITE_HTTP)  // LWS_WRITE_RAW: sent as is
                }
                if sent < count { return -1 }
            }
            // lws sends what the kernel did not take before the next writable callback; a close
            // now would lose the close frame (the peer would see 1006), so it waits for that too.
            if connection.hasOutgoing || lws_partial_buffered(wsi) != 0 {
                lws_callback_on_writable(wsi)
            } else if let (code, reason) = connection.pendingClose {
                return closeNow(wsi, code, reason)
            }
            return 0

        case LWS_CALLBACK_CLOSED:
            if let connection = connection(user) {
                connection.isClosed = true
                connections[connection.id] = nil
                handler?.closed(connection)
            }
            return 0

        case LWS_CALLBACK_HTTP:
            // Debian's lws is built with HTTP/2 and grants an `Upgrade: h2c`; the only hook
            // before that is HTTP_CONFIRM_UPGRADE, which must not be handled (CVE-2025-11677).
            // So an HTTP/2 stream (whose network connection is another wsi) is never served:
            // the connection is closed at its first request.
            if lws_get_network_wsi(wsi) != wsi { return -1 }
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            guard let response = handler?.http(path: path) else { return -1 }
            if let file = response.file {
                let result = lws_serve_http_file(wsi, file, response.contentType, nil, 0)
                if result < 0 { return -1 }
                if result > 0 { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
                return 0
            }
            let status = response.body.withUnsafeBufferPointer { body in
                quizduel_lws_http_respond(wsi, response.status, response.contentType, body.baseAddress, body.count)
            }
            return status != 0 ? -1 : 0

        case LWS_CALLBACK_HTTP_FILE_COMPLETION:
            return lws_http_transaction_completed(wsi) != 0 ? -1 : 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    private func connection(_ user: UnsafeMutableRawPointer?) -> Connection? {
        guard let user else { return nil }
        return connections[user.load(as: UInt64.self)]?.connection
    }

    private func closeNow(_ wsi: OpaquePointer?, _ code: CloseCode, _ reason: String) -> Int32 {
        var bytes = Array(reason.utf8.prefix(120))
        bytes.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code.rawValue)), buffer.baseAddress, buffer.count)
        }
        return -1
    }

    private func header(_ wsi: OpaquePointer?, _ token: lws_token_indexes) -> String? {
        let length = lws_hdr_total_length(wsi, token)
        guard length > 0, length < 4_096 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(cString: buffer)
    }

    /// The socket's peer, or the client a trusted proxy names (``ClientAddress``).
    /// The upgrade request's headers are still readable in ESTABLISHED.
    private func clientAddress(_ wsi: OpaquePointer?) -> String {
        let peer = peerAddress(wsi)
        guard !limits.trustedProxies.isEmpty, limits.trustedProxies.contains(peer) else { return peer }
        return ClientAddress.resolve(
            peer: peer, forwarded: customHeader(wsi, "forwarded:"),
            forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR), trusted: limits.trustedProxies)
    }

    private func customHeader(_ wsi: OpaquePointer?, _ name: String) -> String? {
        let length = lws_hdr_custom_length(wsi, name, Int32(name.utf8.count))
        guard length > 0, length < 4_096 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), name, Int32(name.utf8.count)) >= 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func peerAddress(_ wsi: OpaquePointer?) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "unknown" }
        return String(cString: buffer)
    }
}

/// The C callback: a global function, so it is a valid C function pointer.
/// It finds the server through the context's user pointer.
private func lwsCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let context = lws_get_context(wsi), let pointer = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<LWSServer>.fromOpaque(pointer).takeUnretainedValue()
    return server.callback(wsi, reason, user, input, length)
}

/// The C callback of the liveness sweep's timer, on the lws thread.
private func lwsSweepFired(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<LWSServer>.fromOpaque(owner).takeUnretainedValue().sweep()
}

/// The C callback of the loop's timer (`quizduel_ev_timer` in the shim), on the lws thread.
private func lwsTimerFired(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<LWSServer>.fromOpaque(owner).takeUnretainedValue().timerFired()
}

enum ServerError: Error, CustomStringConvertible {
    case startup(String)
    var description: String {
        switch self {
        case .startup(let message): message
        }
    }
}
