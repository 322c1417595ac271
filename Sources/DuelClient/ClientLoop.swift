import CLibWebSockets
import Foundation
import Synchronization

/// One libwebsockets client context and its service thread, shared by many
/// ``DuelClient`` connections (a load-test process holds thousands).
///
/// Other threads talk to the loop only through its command list and
/// `lws_cancel_service`; all lws calls happen on the loop's thread.
public final class ClientLoop: @unchecked Sendable {
    enum Command {
        case connect(DuelClient)
        case send(DuelClient, [UInt8], binary: Bool)
        case close(DuelClient)
        case run(@Sendable () -> Void)
    }

    private var context: OpaquePointer?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let name: UnsafeMutablePointer<CChar>
    private let commands = Mutex<[Command]>([])
    private let running = Mutex(true)
    private let finished = DispatchSemaphore(value: 0)
    /// The libev loop the thread runs (epoll: a fleet of thousands of sockets would
    /// otherwise be polled whole on every wake-up; see the shim).
    private let loop: UnsafeMutableRawPointer
    // Loop-thread state.
    fileprivate var clients: [UInt64: (client: DuelClient, wsi: OpaquePointer?)] = [:]
    /// Clients whose WebSocket is open (past CLIENT_ESTABLISHED).
    fileprivate var established = Set<UInt64>()
    private var timers = LoopTimers()
    /// One libev timer on the loop for the earliest of `timers` (not an lws_sul:
    /// see `quizduel_ev_timer` in the shim), so no extra thread or periodic wake-up.
    private var wakeup: UnsafeMutableRawPointer?
    private var wakeupDue = UInt64.max

    /// The process-wide loop most callers want.
    public static let shared: ClientLoop = try! ClientLoop()

    private static let extra = Mutex<[ClientLoop]>([])

    /// `count` process-wide loops (the first is ``shared``), created on first use and
    /// never destroyed: destroying one lws context while others run in the same
    /// process was seen to drop the other contexts' connections.
    public static func loops(_ count: Int) -> [ClientLoop] {
        extra.withLock { extra in
            while extra.count < count - 1 { extra.append(try! ClientLoop()) }
            return [shared] + extra.prefix(max(0, count - 1))
        }
    }

    public init() throws {
        lws_set_log_level(Int32(LLL_ERR), nil)
        name = strdup("duel.v1")
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = clientCallback
        protocols[0].rx_buffer_size = 8_192
        guard let loop = quizduel_ev_loop_new() else { throw DuelClientError.connectFailed("cannot create an event loop") }
        self.loop = loop
        let created = quizduel_lws_create_client_context(protocols, nil, loop)
        guard let created else { throw DuelClientError.connectFailed("cannot create a libwebsockets context") }
        context = created
        Self.register(self, for: created)
        let thread = Thread { [self] in
            // Returns when a wake-up finds `running` false and breaks the loop.
            quizduel_ev_run(self.loop)
            finished.signal()
        }
        thread.name = "duel-client"
        thread.start()
    }

    deinit {
        protocols.deallocate()
        free(name)
    }

    /// Stops the loop and drops every connection.
    public func shutdown() {
        running.withLock { $0 = false }
        lws_cancel_service(context)
        finished.wait()
        lws_context_destroy(context)
        context = nil
        if let wakeup { quizduel_ev_timer_free(loop, wakeup) }
        wakeup = nil
        quizduel_ev_loop_destroy(loop)
    }

    func enqueue(_ command: Command) {
        commands.withLock { $0.append(command) }
        if let context { lws_cancel_service(context) }
    }

    /// Runs `body` on the loop's thread (from any thread).
    public func perform(_ body: @escaping @Sendable () -> Void) {
        enqueue(.run(body))
    }

    /// Runs `body` on the loop's thread after `delayMicros`. Call on the loop's thread only.
    public func schedule(afterMicros delayMicros: UInt64, _ body: @escaping () -> Void) {
        timers.add(due: monotonicMicros() + delayMicros, body)
        armWakeup()
    }

    /// Sends a frame now-ish without the command list. Call on the loop's thread only.
    func sendFromLoop(_ client: DuelClient, _ bytes: UnsafeRawBufferPointer, binary: Bool = false) {
        guard let wsi = clients[client.id]?.wsi else { return }
        client.outgoing.append((Self.padded(bytes), binary))
        lws_callback_on_writable(wsi)
    }

    /// Closes without the command list. Call on the loop's thread only.
    func closeFromLoop(_ client: DuelClient) {
        guard let wsi = clients[client.id]?.wsi else { return }
        client.wantsClose = true
        // Still connecting: no lws call touches the wsi (calls on connecting wsis crashed
        // with 19,000 bots whose connect timeouts fired); it closes once established, or
        // lws reports its failure.
        guard established.contains(client.id) else { return }
        lws_callback_on_writable(wsi)
    }

    /// `bytes` behind the LWS_PRE headroom lws_write needs, built once per frame.
    private static func padded(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let pre = quizduel_lws_pre()
        return [UInt8](unsafeUninitializedCapacity: pre + bytes.count) { buffer, count in
            buffer.baseAddress!.initialize(repeating: 0, count: pre)
            if !bytes.isEmpty {
                UnsafeMutableRawPointer(buffer.baseAddress! + pre).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            }
            count = pre + bytes.count
        }
    }

    private func armWakeup() {
        guard let due = timers.nextDue, due < wakeupDue, context != nil else { return }
        if wakeup == nil { wakeup = quizduel_ev_timer_new(loopTimerFired, Unmanaged.passUnretained(self).toOpaque()) }
        guard let wakeup else { return }
        wakeupDue = due
        let now = monotonicMicros()
        quizduel_ev_timer_arm(loop, wakeup, due > now ? Double(due - now) / 1_000_000 : 0)
    }

    fileprivate func timerFired() {
        wakeupDue = .max
        let now = monotonicMicros()
        while let body = timers.popDue(now: now) { body() }
        armWakeup()
    }

    // MARK: loop thread

    private func runCommands() {
        let pending = commands.withLock { list in defer { list.removeAll() }; return list }
        for command in pending {
            switch command {
            case .connect(let client):
                // Registered before connecting: lws may report the connection's failure
                // from inside the connect call, and the entry must be gone after that,
                // not re-added with a wsi lws has already freed (a crash at 19,000 bots).
                clients[client.id] = (client, nil)
                let endpoint = client.endpoint
                let wsi = endpoint.host.withCString { host in
                    endpoint.path.withCString { path in
                        quizduel_lws_client_connect(
                            context, host, Int32(endpoint.port), path, host, "duel.v1",
                            UnsafeMutableRawPointer(bitPattern: UInt(client.id)))
                    }
                }
                if wsi == nil {
                    if clients.removeValue(forKey: client.id) != nil {
                        client.didClose(code: nil, reason: "connect failed")
                    }
                } else if clients[client.id] != nil {
                    clients[client.id]?.wsi = wsi
                }
            case .send(let client, let bytes, let binary):
                bytes.withUnsafeBytes { sendFromLoop(client, $0, binary: binary) }
            case .close(let client):
                closeFromLoop(client)
            case .run(let body):
                body()
            }
        }
    }

    fileprivate func callback(
        _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
            if !running.withLock({ $0 }) {
                quizduel_ev_break_all(loop)
                return 0
            }
            runCommands()
            return 0
        }
        let id = UInt64(UInt(bitPattern: lws_get_opaque_user_data(wsi)))
        guard let client = clients[id]?.client else { return 0 }
        switch reason {
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            established.insert(id)
            client.didOpen()
            if !client.outgoing.isEmpty || client.wantsClose { lws_callback_on_writable(wsi) }
        case LWS_CALLBACK_CLIENT_RECEIVE:
            let first = lws_is_first_fragment(wsi) != 0
            let final = lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0
            let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            if first && final {
                // The usual case (frames are small): hand over lws's buffer, no copy.
                client.didReceive(chunk)
            } else {
                if first { client.partial.removeAll(keepingCapacity: true) }
                client.partial.append(contentsOf: chunk)
                if final {
                    client.partial.withUnsafeBytes { client.didReceive($0) }
                    client.partial = []
                }
            }
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            if !client.outgoing.isEmpty {
                var (buffer, binary) = client.outgoing.removeFirst()
                let pre = quizduel_lws_pre()
                let length = buffer.count - pre
                let written = buffer.withUnsafeMutableBufferPointer { pointer in
                    lws_write(wsi, pointer.baseAddress! + pre, length, binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT)
                }
                if written < length { return -1 }
            }
            if !client.outgoing.isEmpty {
                lws_callback_on_writable(wsi)
            } else if client.wantsClose {
                lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, nil, 0)
                return -1
            }
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if let input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                client.peerCloseCode = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            }
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let reason = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            clients[id] = nil
            established.remove(id)
            client.didClose(code: nil, reason: reason)
        case LWS_CALLBACK_CLIENT_CLOSED:
            clients[id] = nil
            established.remove(id)
            client.didClose(code: client.peerCloseCode ?? 1006, reason: "closed")
        default:
            break
        }
        return 0
    }

    // lws gives the callback only the wsi; its context leads back to the loop.
    nonisolated(unsafe) private static var loops: [OpaquePointer: Unmanaged<ClientLoop>] = [:]
    private static let loopsLock = NSLock()

    private static func register(_ loop: ClientLoop, for context: OpaquePointer) {
        loopsLock.lock()
        loops[context] = Unmanaged.passUnretained(loop)
        loopsLock.unlock()
    }

    fileprivate static func loop(for context: OpaquePointer?) -> ClientLoop? {
        guard let context else { return nil }
        loopsLock.lock()
        defer { loopsLock.unlock() }
        return loops[context]?.takeUnretainedValue()
    }
}

private func clientCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let loop = ClientLoop.loop(for: lws_get_context(wsi)) else { return 0 }
    return loop.callback(wsi, reason, input, length)
}

/// The C callback of the loop's timer, on the loop's thread.
private func loopTimerFired(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<ClientLoop>.fromOpaque(owner).takeUnretainedValue().timerFired()
}
