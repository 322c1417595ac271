import DuelCore
import Foundation
import Synchronization

public enum DuelClientError: Error, CustomStringConvertible {
    case badURL(String)
    case connectFailed(String)
    case closed(code: UInt16?)
    case timeout(String)

    public var description: String {
        switch self {
        case .badURL(let url): "not a ws:// URL: \(url)"
        case .connectFailed(let reason): "connect failed: \(reason)"
        case .closed(let code): "connection closed (code \(code.map(String.init) ?? "none"))"
        case .timeout(let what): "timed out waiting for \(what)"
        }
    }
}

/// One connection to a duel server, speaking PROTOCOL.md.
///
/// `request` sends an op and returns its reply (or error) message; everything
/// else the server sends (events) is queued for ``next(timeout:)``. Every frame
/// received is also kept in ``transcript`` so tests can check what leaked.
///
/// Made with a ``DuelClientHandler`` instead, the client only passes frames to
/// it on the loop's thread (see there); `request`, `next` and `transcript` are then unused.
public final class DuelClient: @unchecked Sendable {
    struct Endpoint {
        let host: String
        let port: Int
        let path: String
    }

    let id: UInt64
    let endpoint: Endpoint
    private let loop: ClientLoop

    /// Set for the light path (see ``DuelClientHandler``); weak because the handler owns the client.
    private weak var handler: (any DuelClientHandler)?
    private let hasHandler: Bool

    // Loop-thread state.
    /// Frames to write, each already behind LWS_PRE bytes of headroom; binary or text.
    var outgoing: [([UInt8], Bool)] = []
    var wantsClose = false
    var partial: [UInt8] = []
    var peerCloseCode: UInt16?

    private struct State {
        var open = false
        var closed = false
        var closeCode: UInt16?
        var opened: CheckedContinuation<Void, Error>?
        var replies: [String: CheckedContinuation<JSONValue, Error>] = [:]
        var inbox: [Received] = []
        var waiter: CheckedContinuation<Received?, Never>?
        var transcript: [String] = []
        var nextRef = 0
    }

    private let state = Mutex(State())
    private static let ids = Mutex<UInt64>(1)

    /// `url`: `ws://host:port/path`.
    public convenience init(url: String, loop: ClientLoop = .shared) throws {
        try self.init(url: url, loop: loop, optionalHandler: nil)
    }

    /// A client whose events all go to `handler` on `loop`'s thread; ``open()`` connects it.
    public convenience init(url: String, loop: ClientLoop, handler: any DuelClientHandler) throws {
        try self.init(url: url, loop: loop, optionalHandler: handler)
    }

    private init(url: String, loop: ClientLoop, optionalHandler: (any DuelClientHandler)?) throws {
        guard url.hasPrefix("ws://") else { throw DuelClientError.badURL(url) }
        let rest = url.dropFirst(5)
        let hostPort = rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        let path = "/" + (rest.split(separator: "/", maxSplits: 1).dropFirst().first.map(String.init) ?? "")
        let parts = hostPort.split(separator: ":")
        guard let host = parts.first, parts.count <= 2 else { throw DuelClientError.badURL(url) }
        let port = parts.count == 2 ? Int(parts[1]) ?? 80 : 80
        endpoint = Endpoint(host: host == "localhost" ? "127.0.0.1" : String(host), port: port, path: path)
        self.loop = loop
        handler = optionalHandler
        hasHandler = optionalHandler != nil
        id = Self.ids.withLock { id in defer { id += 1 }; return id }
    }

    /// Starts connecting (any thread); the handler hears of the outcome.
    public func open() {
        loop.enqueue(.connect(self))
    }

    /// Sends a text frame. Call on the loop's thread only (from the handler).
    public func sendFromLoop(_ text: UnsafeRawBufferPointer) {
        loop.sendFromLoop(self, text)
    }

    /// Closes the connection. Call on the loop's thread only (from the handler).
    public func closeFromLoop() {
        loop.closeFromLoop(self)
    }

    /// Opens the connection.
    public func connect(timeout: Duration = .seconds(10)) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            state.withLock { $0.opened = continuation }
            loop.enqueue(.connect(self))
            after(timeout) { [self] in
                let pending = state.withLock { state in defer { state.opened = nil }; return state.opened }
                pending?.resume(throwing: DuelClientError.timeout("connect"))
            }
        }
    }

    /// Sends `op` with `fields` and a fresh ref; returns the reply or error message.
    public func request(_ op: String, _ fields: JSONObject = [:], timeout: Duration = .seconds(30)) async throws -> JSONValue {
        let ref = state.withLock { state -> String in
            state.nextRef += 1
            return "r\(state.nextRef)"
        }
        var message = fields
        message["op"] = .string(op)
        message["ref"] = .string(ref)
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, Error>) in
            let closed = state.withLock { state -> Bool in
                if state.closed { return true }
                state.replies[ref] = continuation
                return false
            }
            if closed {
                continuation.resume(throwing: DuelClientError.closed(code: closeCode))
                return
            }
            let bytes = Array(JSONValue.object(message).serialized.utf8)
            FrameLog.record(connection: id, outgoing: true, bytes)
            loop.enqueue(.send(self, bytes, binary: false))
            after(timeout) { [self] in
                state.withLock { $0.replies.removeValue(forKey: ref) }?
                    .resume(throwing: DuelClientError.timeout("reply to \(op)"))
            }
        }
    }

    /// Runs `body` after `delay` on a global queue (timeouts that must not hold a task).
    private func after(_ delay: Duration, _ body: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: body)
    }

    /// Sends raw bytes as a text (or binary) frame, for tests of bad input.
    public func sendRaw(_ bytes: [UInt8], binary: Bool = false) {
        if !binary && !hasHandler { FrameLog.record(connection: id, outgoing: true, bytes) }
        loop.enqueue(.send(self, bytes, binary: binary))
    }

    public func sendRaw(_ text: String) {
        sendRaw(Array(text.utf8))
    }

    /// A message with the moment it arrived (monotonic clock, µs), for latency measurements
    /// that must not include the time the reader took to get to it.
    public struct Received: Sendable {
        public let message: JSONValue
        public let receivedAtMicros: UInt64
    }

    /// The next message that was not a reply to a `request` (events, replies to raw sends),
    /// or nil after `timeout` or once closed and drained.
    public func next(timeout: Duration = .seconds(30)) async -> JSONValue? {
        await nextReceived(timeout: timeout)?.message
    }

    /// ``next(timeout:)`` with the arrival time.
    public func nextReceived(timeout: Duration = .seconds(30)) async -> Received? {
        let message: Received? = await withTaskGroup(of: Received?.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Received?, Never>) in
                    let ready = self.state.withLock { state -> Received?? in
                        if !state.inbox.isEmpty { return .some(state.inbox.removeFirst()) }
                        if state.closed { return .some(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            // Whoever lost: wake a still-parked waiter so the group can finish.
            let parked = self.state.withLock { state -> CheckedContinuation<Received?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            parked?.resume(returning: nil)
            // A message that raced the timeout is still returned, not lost.
            var result = first
            for await other in group where result == nil { result = other }
            return result
        }
        return message
    }

    /// Waits for the next event named `name`, skipping others (they stay in the transcript).
    public func nextEvent(_ name: String, timeout: Duration = .seconds(30)) async -> JSONValue? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = await next(timeout: deadline - ContinuousClock.now) else { return nil }
            if message["event"] == .string(name) { return message }
        }
        return nil
    }

    public func close() {
        loop.enqueue(.close(self))
    }

    public var isClosed: Bool { state.withLock { $0.closed } }
    /// The close code the server sent (1006 when the connection dropped without one).
    public var closeCode: UInt16? { state.withLock { $0.closeCode } }
    /// Every text frame received, in order.
    public var transcript: [String] { state.withLock { $0.transcript } }

    /// Waits until the connection is closed; returns the close code.
    public func waitClosed(timeout: Duration = .seconds(10)) async -> UInt16? {
        let deadline = ContinuousClock.now + timeout
        while !isClosed && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return closeCode
    }

    // MARK: Called on the loop thread

    func didOpen() {
        if hasHandler {
            handler?.clientDidOpen(self)
            return
        }
        let continuation = state.withLock { state -> CheckedContinuation<Void, Error>? in
            state.open = true
            defer { state.opened = nil }
            return state.opened
        }
        continuation?.resume()
    }

    func didReceive(_ frame: UnsafeRawBufferPointer) {
        let receivedAt = monotonicMicros()
        if hasHandler {
            handler?.client(self, didReceive: frame, receivedAtMicros: receivedAt)
            return
        }
        let bytes = Array(frame)
        FrameLog.record(connection: id, outgoing: false, bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let message = (try? JSONParser.parse(bytes)) ?? .object(["op": "unparseable", "text": .string(text)])
        let received = Received(message: message, receivedAtMicros: receivedAt)
        var replyTo: CheckedContinuation<JSONValue, Error>?
        var waiter: CheckedContinuation<Received?, Never>?
        state.withLock { state in
            state.transcript.append(text)
            if case .string(let ref)? = message["ref"], let continuation = state.replies.removeValue(forKey: ref) {
                replyTo = continuation
            } else if let parked = state.waiter {
                state.waiter = nil
                waiter = parked
            } else {
                state.inbox.append(received)
            }
        }
        replyTo?.resume(returning: message)
        waiter?.resume(returning: received)
    }

    func didClose(code: UInt16?, reason: String) {
        if hasHandler {
            state.withLock { state in
                state.closed = true
                state.closeCode = code
            }
            handler?.client(self, didCloseWithCode: code)
            return
        }
        let (opened, replies, waiter) = state.withLock { state in
            state.closed = true
            state.closeCode = code
            defer {
                state.opened = nil
                state.replies = [:]
                state.waiter = nil
            }
            return (state.opened, Array(state.replies.values), state.waiter)
        }
        opened?.resume(throwing: DuelClientError.connectFailed(reason))
        replies.forEach { $0.resume(throwing: DuelClientError.closed(code: code)) }
        waiter?.resume(returning: nil)
    }
}

