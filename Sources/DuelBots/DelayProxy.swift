import CEpoll
import Foundation
import Glibc
import Synchronization

/// A TCP proxy that holds bytes back, for network delay on a kernel without `netem` (issue 26):
/// the fairness tests and the `fairness` bench scenario put far players behind it.
///
/// Every byte from a client waits `upMs` before it goes to the server, every byte back waits
/// `downMs`; WebSocket pings and pongs are bytes like the rest, so a round trip measured through
/// the proxy includes both delays. With `pongsOnly`, only the client's pong frames are held
/// back (a client that delays its pongs to look farther away than it is); everything else
/// passes at once. Outgoing connections bind to `sourceAddress` when given, so the server can
/// tell the proxy's connections (for example `127.0.0.2`, listed as a trusted proxy) from
/// direct ones. One thread, epoll; a constant delay keeps each direction's queue in time order.
public final class DelayProxy: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let epoll: Int32
    private let target: sockaddr_in
    private let source: in_addr?
    /// µs each way, and whether only pongs wait on the way up.
    private let delays: (upUs: Int64, downUs: Int64, pongsOnly: Bool)
    /// Set by ``stop()`` from another thread.
    private let stopping = Atomic<Bool>(false)
    private var thread: Thread?
    /// The other end of each open socket.
    private var peer: [Int32: Int32] = [:]
    /// Client sockets (their bytes go up), and the WebSocket frame parser of each (pongsOnly).
    private var parsers: [Int32: UpstreamFrames] = [:]
    /// Bytes waiting, in due order: (due µs, to socket, bytes; empty = close), from `head` on
    /// (a moving head, not removeFirst: thousands wait at once in the fairness scenario).
    private var queue: [(dueUs: Int64, fd: Int32, bytes: [UInt8])] = []
    private var head = 0

    public init(targetPort: Int, upMs: Int, downMs: Int, pongsOnly: Bool = false, sourceAddress: String? = nil) throws {
        delays = (Int64(upMs) * 1_000, Int64(downMs) * 1_000, pongsOnly)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(targetPort).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        target = address
        if let sourceAddress {
            var parsed = in_addr()
            guard inet_pton(AF_INET, sourceAddress, &parsed) == 1 else { throw ProxyError("bad source \(sourceAddress)") }
            source = parsed
        } else {
            source = nil
        }
        let (listener, port) = try Self.listen()
        self.listener = listener
        self.port = port
        epoll = epoll_create1(0)
        watch(listener)
        let thread = Thread { [self] in run() }
        thread.name = "delay-proxy"
        thread.start()
        self.thread = thread
    }

    private static func listen() throws -> (Int32, Int) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &local.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 4_096) == 0 else { throw ProxyError("cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        return (listener, Int(UInt16(bigEndian: local.sin_port)))
    }

    /// Stops forwarding (sockets close with the process or at the next wake-up).
    public func stop() { stopping.store(true, ordering: .relaxed) }

    private func watch(_ fd: Int32) {
        _ = quizduel_epoll_watch(epoll, fd)
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !stopping.load(ordering: .relaxed) {
            let now = Self.nowUs()
            let wait = head < queue.count ? Int32(max(0, min(50, (queue[head].dueUs - now + 999) / 1_000))) : 50
            let ready = epoll_wait(epoll, &events, Int32(events.count), wait)
            for event in events.prefix(Int(max(0, ready))) {
                let fd = withUnsafePointer(to: event) { quizduel_epoll_fd($0) }
                if fd == listener { accept(); continue }
                guard let other = peer[fd] else { continue }
                var arrivalUs: Int64 = 0
                let count = quizduel_recv_stamped(fd, &buffer, buffer.count, &arrivalUs)
                let isUp = parsers[fd] != nil
                // Held back from the bytes' arrival in the kernel, not from this read: on a busy
                // machine the loop reads late, and that lateness is not the network it simulates.
                let due = Self.arrivedUs(kernelStampUs: arrivalUs) + (isUp ? delays.upUs : delays.downUs)
                if count <= 0 {
                    _ = quizduel_epoll_unwatch(epoll, fd)
                    enqueue((due, other, []))
                    continue
                }
                let bytes = Array(buffer[..<count])
                if isUp && delays.pongsOnly {
                    // Only pong frames wait; the rest passes now, ahead of any pong held back.
                    for (frame, isPong) in parsers[fd]!.split(bytes) {
                        if isPong { enqueue((due, other, frame)) } else { forward(frame, to: other) }
                    }
                } else {
                    enqueue((due, other, bytes))
                }
            }
            let time = Self.nowUs()
            while head < queue.count, queue[head].dueUs <= time {
                let first = queue[head]
                head += 1
                if first.bytes.isEmpty { closePair(first.fd) } else { forward(first.bytes, to: first.fd) }
            }
            if head > 4_096 && head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
        }
        for fd in peer.keys { close(fd) }
        close(listener)
        close(epoll)
    }

    /// Keeps the queue in due order (each direction's delay is constant, so this is an append
    /// unless the two directions' delays differ).
    private func enqueue(_ item: (dueUs: Int64, fd: Int32, bytes: [UInt8])) {
        var at = queue.count
        while at > head && queue[at - 1].dueUs > item.dueUs { at -= 1 }
        queue.insert(item, at: at)
    }

    private func forward(_ bytes: [UInt8], to fd: Int32) {
        guard peer[fd] != nil else { return }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { closePair(fd); return }
            offset += sent
        }
    }

    private func closePair(_ fd: Int32) {
        guard let other = peer.removeValue(forKey: fd) else { return }
        peer[other] = nil
        parsers[fd] = nil
        parsers[other] = nil
        close(fd)
        close(other)
    }

    private func accept() {
        let client = Glibc.accept(listener, nil, nil)
        guard client >= 0 else { return }
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr = source
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var address = target
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(client); close(server); return }
        peer[client] = server
        peer[server] = client
        parsers[client] = UpstreamFrames()
        _ = quizduel_stamp_arrivals(client)
        _ = quizduel_stamp_arrivals(server)
        watch(client)
        watch(server)
    }

    /// When data stamped `kernelStampUs` (CLOCK_REALTIME, 0: no stamp) arrived, on the
    /// monotonic clock of due times.
    static func arrivedUs(kernelStampUs: Int64) -> Int64 {
        let now = nowUs()
        guard kernelStampUs > 0 else { return now }
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let ago = Int64(wall.tv_sec) * 1_000_000 + Int64(wall.tv_nsec) / 1_000 - kernelStampUs
        return now - min(max(0, ago), 1_000_000)
    }

    /// The bots' monotonic clock (``nowMicros()``), signed for the arithmetic of due times.
    static func nowUs() -> Int64 { Int64(nowMicros()) }

    struct ProxyError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Splits a client's byte stream into the HTTP upgrade and then whole WebSocket frames, telling
/// pongs (opcode 0xA) apart. Client frames are masked (RFC 6455 5.3).
struct UpstreamFrames {
    private var pending: [UInt8] = []
    private var upgraded = false

    mutating func split(_ bytes: [UInt8]) -> [(frame: [UInt8], isPong: Bool)] {
        pending += bytes
        var out: [(frame: [UInt8], isPong: Bool)] = []
        if !upgraded {
            guard let end = Self.headerEnd(pending) else { return out }
            out.append((Array(pending[..<end]), false))
            pending.removeFirst(end)
            upgraded = true
        }
        while pending.count >= 2 {
            var length = Int(pending[1] & 0x7f)
            var header = 2
            if length == 126 {
                guard pending.count >= 4 else { break }
                length = Int(pending[2]) << 8 | Int(pending[3])
                header = 4
            } else if length == 127 {
                guard pending.count >= 10 else { break }
                length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
                header = 10
            }
            if pending[1] & 0x80 != 0 { header += 4 }
            guard pending.count >= header + length else { break }
            out.append((Array(pending[..<(header + length)]), pending[0] & 0x0f == 0x0a))
            pending.removeFirst(header + length)
        }
        return out
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}
