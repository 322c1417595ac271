import CEpoll
@testable import DuelBots
import Foundation
import Glibc
import Testing

/// The delay proxy of the fairness tests and bench (issue 26), over real loopback sockets.
@Suite struct DelayProxyTests {
    /// A listening socket on a free loopback port.
    func listener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        Glibc.listen(fd, 8)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    func connectTo(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return fd
    }

    /// The kernel stamps what a TCP socket receives, and the stamp is when it came, not when it
    /// was read: so the proxy's delay does not grow with how late its loop reads.
    @Test func tcpDataCarriesItsArrivalTime() throws {
        let (server, port) = try listener()
        defer { close(server) }
        let client = connectTo(port)
        defer { close(client) }
        let accepted = accept(server, nil, nil)
        defer { close(accepted) }
        #expect(quizduel_stamp_arrivals(accepted) == 0)
        // The kernel turns receive stamps on for the first socket that asks in deferred work
        // (net_enable_timestamp), so data arriving in the next instant may carry none: wait it out.
        usleep(100_000)
        // Retried a few times: until the deferred work has run, data may come unstamped.
        var sentUs: Int64 = 0, arrival: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: 16)
        for _ in 0..<5 where arrival == 0 {
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            sentUs = Int64(wall.tv_sec) * 1_000_000 + Int64(wall.tv_nsec) / 1_000
            _ = send(client, "ping", 4, 0)
            usleep(30_000)  // read 30 ms late
            #expect(quizduel_recv_stamped(accepted, &buffer, buffer.count, &arrival) == 4)
        }
        #expect(arrival >= sentUs && arrival - sentUs < 10_000, "stamped \(arrival - sentUs) µs after the send")
        let arrived = DelayProxy.arrivedUs(kernelStampUs: arrival)
        #expect(DelayProxy.nowUs() - arrived >= 25_000, "the arrival is 30 ms ago on the monotonic clock too")
    }

    @Test func bytesWaitTheirDelayEachWay() throws {
        let (server, port) = try listener()
        defer { close(server) }
        let proxy = try DelayProxy(targetPort: port, upMs: 40, downMs: 200)
        defer { proxy.stop() }
        let client = connectTo(proxy.port)
        defer { close(client) }
        let accepted = accept(server, nil, nil)
        defer { close(accepted) }
        var buffer = [UInt8](repeating: 0, count: 16)
        var start = DelayProxy.nowUs()
        _ = send(client, "up", 2, 0)
        #expect(read(accepted, &buffer, buffer.count) == 2)
        let up = DelayProxy.nowUs() - start
        start = DelayProxy.nowUs()
        _ = send(accepted, "down", 4, 0)
        #expect(read(client, &buffer, buffer.count) == 4)
        let down = DelayProxy.nowUs() - start
        // The upper bounds leave a loaded machine 60 ms of scheduling (20 ms was seen to fail),
        // and the two delays are far enough apart that neither range holds the other's delay
        // or their sum: a byte delayed the wrong way, or both ways, still fails.
        #expect(up >= 40_000 && up < 100_000, "up \(up) µs")
        #expect(down >= 200_000 && down < 260_000, "down \(down) µs")
    }
}
