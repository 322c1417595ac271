import CLibWebSockets
import CTCPInfo
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

    /// The least time between two polls of the loop (libev's I/O collect interval). At human
    /// pace each frame in or out woke the loop on its own, and a wake-up of a sleeping thread is
    /// dear on this machine (the scheduler was 15 % of the server's CPU); sleeping out a
    /// millisecond before the next poll handles what arrived in it in one wake-up. No timer
    /// fires later for it. 1 ms: −10 % CPU per answer at human pace, p99s unchanged; 2 ms gave
    /// no more (bench/NOTES.md item 35).
    static let collectSeconds = 0.001

    private var context: OpaquePointer?
    private let table = LWSProtocolTable()
    private var thread: Thread?
    /// The libev loop the service thread runs (see the shim: epoll instead of poll()).
    private let loop: UnsafeMutableRawPointer
    /// The loop's watchers (libev watchers of the shim, freed at ``stop()``).
    private var watchers = LoopWatchers()
    private let liveness: Liveness
    /// The shutdown's flags, set by other threads and read on the loop's wake-up.
    private let shutdown = Shutdown()
    let limits: Limits
    let logger: Logger
    /// Given by ``start(handler:)``: nothing calls it before the loop runs.
    private unowned(unsafe) var handler: (any WebSocketHandler)?
    /// Connections by their per-session slot, on the lws thread.
    var connections = ConnectionSlots()
    /// The writes' framing buffer, reused (lws thread only).
    var batch = FrameBatch(headroom: Int(quizduel_lws_pre()))

    init(host: String, port: Int, limits: Limits, logger: Logger) throws {
        self.limits = limits
        self.logger = logger
        liveness = Liveness(pingAfterMs: Int64(limits.pingAfterSeconds) * 1_000,
                            hangupAfterMs: Int64(limits.hangupAfterSeconds) * 1_000)
        // lws logs notices to stderr by default; the server logs what matters itself.
        lws_set_log_level(Int32(LLL_ERR | LLL_WARN), nil)
        guard let loop = quizduel_ev_loop_new() else { throw ServerError.startup("cannot create an event loop") }
        self.loop = loop
        quizduel_ev_collect(loop, Self.collectSeconds)
        let created = host.withCString { interface in
            quizduel_lws_create_context(
                Int32(port), host.isEmpty ? nil : interface, table.protocols, table.retry,
                Unmanaged.passUnretained(self).toOpaque(), 16_384, loop)
        }
        guard let created else {
            quizduel_ev_loop_destroy(loop)
            throw ServerError.startup("cannot listen on \(host.isEmpty ? "*" : host):\(port) (in use or not permitted)")
        }
        context = created
    }

    /// Runs the service loop on a thread of its own until ``stop()``, reporting to `handler`.
    func start(handler: any WebSocketHandler) {
        self.handler = handler
        watchers.sweep = quizduel_ev_timer_new(lwsSweepFired, Unmanaged.passUnretained(self).toOpaque())
        if let sweep = watchers.sweep { quizduel_ev_timer_arm(loop, sweep, 0.1) }
        // Without it nothing queued would be written: a failed allocation of a few bytes here
        // means the process has no memory left anyway.
        guard let flush = quizduel_ev_prepare_start(loop, lwsFlushFired, Unmanaged.passUnretained(self).toOpaque()) else {
            fatalError("cannot create the event loop's prepare watcher")
        }
        watchers.flush = flush
        let thread = Thread { [self] in
            // Returns when the wake-up that sees `stopping` breaks the loop.
            quizduel_ev_run(loop)
            shutdown.stopped.signal()
        }
        thread.name = "lws"
        thread.start()
        self.thread = thread
    }

    /// Calls ``WebSocketHandler/timerFired()`` at `dueMs` (server clock) or soon
    /// after, unless an earlier wake-up is already armed. On the lws thread.
    func wakeUp(atMs dueMs: Int64) {
        guard dueMs < watchers.wakeUpDueMs, context != nil else { return }
        if watchers.wakeUp == nil { watchers.wakeUp = quizduel_ev_timer_new(lwsTimerFired, Unmanaged.passUnretained(self).toOpaque()) }
        guard let timer = watchers.wakeUp else { return }
        watchers.wakeUpDueMs = dueMs
        quizduel_ev_timer_arm(loop, timer, Double(dueMs - Clock.nowMs()) / 1_000)
    }

    fileprivate func timerFired() {
        watchers.wakeUpDueMs = .max
        handler?.timerFired()
    }

    /// Asks the service thread to call ``WebSocketHandler/wake()``. Any thread.
    func wake() {
        if let context { lws_cancel_service(context) }
    }

    /// Closes every client with 1001 and stops the loop. Any thread; returns when stopped.
    func stop() {
        // The close frames go out on the service thread; give them a moment.
        shutdown.closeAll.withLock { $0 = true }
        wake()
        Thread.sleep(forTimeInterval: 0.3)
        shutdown.stopping.withLock { $0 = true }
        wake()
        shutdown.stopped.wait()
        lws_context_destroy(context)
        context = nil
        if let timer = watchers.wakeUp { quizduel_ev_timer_free(loop, timer) }
        watchers.wakeUp = nil
        if let sweep = watchers.sweep { quizduel_ev_timer_free(loop, sweep) }
        watchers.sweep = nil
        if let flush = watchers.flush { quizduel_ev_prepare_free(loop, flush) }
        watchers.flush = nil
        quizduel_ev_loop_destroy(loop)
    }

    /// Every 100 ms on the lws thread, each connection once a second, on the tick of its number's
    /// last digit: asks for its round-trip ping when one is due (issue 26), pings it when it went
    /// quiet and drops it when it stayed quiet. A ping goes out at the connection's next writable
    /// callback.
    ///
    /// Both checks run once a second per connection, so a tenth of the connections are looked at
    /// per tick, which also spreads the pings of players who start together over the ticks.
    /// Looking at all 4,000 every tick for the round-trip pings touched each connection's object
    /// ten times a second for nothing (a near one is never pinged again): 8 % of the lws thread
    /// at human pace (bench/NOTES.md item 45). The other nine tenths cost a read of their keys.
    /// ``RoundTripProbe/wantsPing(lookUs:)`` keeps a game's pings a second apart with one look a
    /// second.
    fileprivate func sweep() {
        watchers.ticks += 1
        let phase = UInt64(watchers.ticks % 10)
        let nowUs = Clock.monotonicUs()
        let nowMs = Clock.nowMs()
        for id in connections.byID.keys where id % 10 == phase {
            guard let (connection, wsi) = connections.byID[id], !connection.isClosed else { continue }
            if connection.probe.wantsPing(lookUs: nowUs) {
                connection.probe.due = true
                lws_callback_on_writable(wsi)
            }
            checkLiveness(connection, wsi, nowMs: nowMs)
        }
        if let sweep = watchers.sweep { quizduel_ev_timer_arm(loop, sweep, 0.1) }
    }

    private func checkLiveness(_ connection: Connection, _ wsi: OpaquePointer, nowMs: Int64) {
        switch liveness.verdict(lastHeardMs: connection.liveness.lastHeardMs, pinged: connection.liveness.pinged, nowMs: nowMs) {
        case .alive:
            break
        case .ping:
            connection.liveness.pinged = true
            connection.liveness.pingDue = true
            lws_callback_on_writable(wsi)
        case .hangUp:
            // A peer this quiet will not read a close frame: drop the socket.
            lws_set_timeout(wsi, PENDING_TIMEOUT_WS_PONG_CHECK_GET_PONG, LWS_TO_KILL_ASYNC)
        }
    }

    // MARK: - The callback, on the lws thread

    fileprivate func callback(
        _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if shutdown.closeAll.withLock({ requested in defer { requested = false }; return requested }) {
                for (connection, _) in connections.byID.values { close(connection, .goingAway, "server shutting down") }
            }
            if shutdown.stopping.withLock({ $0 }) {
                quizduel_ev_break_all(loop)
                return 0
            }
            handler?.wake()
            return 0

        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // The upgrade is decided here, never in HTTP_CONFIRM_UPGRADE (CVE-2025-11677).
            // A WebSocket inside an HTTP/2 stream (RFC 8441's CONNECT, which Debian's lws grants)
            // is refused: the server writes frames as raw bytes, which need the network
            // connection's own wsi (``FrameBatch``).
            if lws_get_network_wsi(wsi) != wsi { return 1 }
            let origin = header(wsi, WSI_TOKEN_ORIGIN)
            return handler?.shouldAccept(origin: origin, address: clientAddress(wsi)) == true ? 0 : 1

        case LWS_CALLBACK_ESTABLISHED:
            let id = connections.nextID()
            user?.storeBytes(of: id, as: UInt64.self)
            let connection = Connection(id: id, address: clientAddress(wsi), limiter: RateLimiter())
            connection.probe.direct = !limits.trustedProxies.contains(peerAddress(wsi))
            connections.byID[id] = (connection, wsi!)
            handler?.opened(connection)
            return 0

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            // Before this, a request that followed the close in the same read (lws 4.1.6 still
            // hands it over) ran, and its reply went out before the close's echo.
            connection(user)?.sending.peerClosed = true
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let connection = connection(user) else { return -1 }
            // Nor after the server's own close (lws keeps its reason while it waits up to 5 s for
            // the answer): defensive, as lws 4.1.6 was not seen handing a frame over then.
            if closing(connection, wsi) { return 0 }
            // Any message counts as liveness, not only PONGs.
            connection.heard()
            if lws_is_first_fragment(wsi) != 0 {
                connection.inbound.bytes.removeAll(keepingCapacity: true)
                connection.inbound.isBinary = lws_frame_is_binary(wsi) != 0
            }
            if connection.inbound.isBinary {
                return closeNow(wsi, .unsupportedData, "binary frames are not accepted")
            }
            if connection.inbound.bytes.count + length > limits.maxMessageBytes {
                return closeNow(wsi, .messageTooBig, "message larger than \(limits.maxMessageBytes) bytes")
            }
            if let input, length > 0 {
                connection.inbound.bytes.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            if lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0 {
                let message = connection.inbound.bytes
                connection.inbound.bytes = []
                handler?.received(connection, text: message)
            }
            return 0

        case LWS_CALLBACK_RECEIVE_PONG:
            guard let connection = connection(user) else { return 0 }
            connection.heard()
            if let input, let sample = connection.probe.pong(UnsafeRawBufferPointer(start: input, count: length),
                                                             nowUs: Clock.monotonicUs()) {
                let kernel = connection.probe.direct ? quizduel_tcp_min_rtt_us(lws_get_socket_fd(wsi)) : 0
                connection.probe.record(sample, kernelRttUs: kernel > 0 ? kernel : nil)
                handler?.measured(connection, kernelRttUs: connection.probe.kernelRttUs)
            }
            return 0

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let connection = connection(user) else { return -1 }
            // Nothing goes after the server's close frame, should lws call back while it waits.
            if lws_get_close_length(wsi) != 0 { return 0 }
            if connection.liveness.pingDue {
                connection.liveness.pingDue = false
                // One byte of payload: lws 4.1.6 reports only non-empty pongs (RECEIVE_PONG).
                if writePing(wsi, [0x51]) < 0 { return -1 }
                if lws_partial_buffered(wsi) != 0 {
                    lws_callback_on_writable(wsi)
                    return 0
                }
            }
            if connection.probe.due {
                connection.probe.due = false
                // Stamped as it is written, so the sample holds no time spent waiting to write.
                if writePing(wsi, connection.probe.nextPing(nowUs: Clock.monotonicUs())) < 0 { return -1 }
                if lws_partial_buffered(wsi) != 0 {
                    lws_callback_on_writable(wsi)
                    return 0
                }
            }
            if let wsi, !writeQueued(connection, wsi) { return -1 }
            // lws sends what the kernel did not take before the next writable callback; a close
            // now would lose the close frame (the peer would see 1006), so it waits for that too.
            if connection.hasOutgoing || lws_partial_buffered(wsi) != 0 {
                lws_callback_on_writable(wsi)
            } else if let (code, reason) = connection.sending.pendingClose {
                return closeNow(wsi, code, reason)
            }
            return 0

        case LWS_CALLBACK_CLOSED:
            if let connection = connection(user) {
                connection.isClosed = true
                connections.byID[connection.id] = nil
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
        return connections.byID[user.load(as: UInt64.self)]?.connection
    }
}

/// The C callback: a global function, so it is a valid C function pointer.
/// It finds the server through the context's user pointer.
func lwsCallback(
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
