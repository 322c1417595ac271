import DuelStore
import Foundation
import Logging

/// Holds the LISTEN connection on a thread of its own and hands each NOTIFY to `deliver`.
///
/// When the connection breaks it reconnects with backoff, LISTENs again and
/// calls `resynchronize`: notifications sent while it was away are lost, so the
/// server re-reads what its clients may have missed.
final class NotificationListener: @unchecked Sendable {
    private let conninfo: String
    private let channels: [String]
    private let logger: Logger
    private let deliver: @Sendable (String, String) -> Void
    private let resynchronize: @Sendable () -> Void
    private let stopFlag = NSLock()
    private var stopped = false

    init(
        conninfo: String, channels: [String], logger: Logger,
        deliver: @escaping @Sendable (_ channel: String, _ payload: String) -> Void,
        resynchronize: @escaping @Sendable () -> Void
    ) {
        self.conninfo = conninfo
        self.channels = channels
        self.logger = logger
        self.deliver = deliver
        self.resynchronize = resynchronize
        let thread = Thread { [self] in run() }
        thread.name = "listen"
        thread.start()
    }

    func shutdown() {
        stopFlag.lock()
        stopped = true
        stopFlag.unlock()
    }

    private var isStopped: Bool {
        stopFlag.lock()
        defer { stopFlag.unlock() }
        return stopped
    }

    private func run() {
        var delay = 0.1
        var firstConnection = true
        while !isStopped {
            do {
                let connection = try PGConnection(conninfo)
                for channel in channels { try connection.execute(script: "LISTEN \(channel)") }
                delay = 0.1
                if !firstConnection { resynchronize() }
                firstConnection = false
                try listen(on: connection)
                connection.close()
            } catch {
                logger.warning("LISTEN connection lost; reconnecting", metadata: ["error": "\(error)"])
                Thread.sleep(forTimeInterval: delay)
                delay = min(5, delay * 2)
                firstConnection = false
            }
        }
    }

    private func listen(on connection: PGConnection) throws {
        // Drain first: libpq may already hold notifications that poll() will not announce.
        for note in try connection.notifications() { deliver(note.channel, note.payload) }
        while !isStopped {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 250)
            if ready < 0 && errno != EINTR { throw PGError.client("poll failed") }
            if ready > 0 {
                for note in try connection.notifications() { deliver(note.channel, note.payload) }
            }
        }
    }
}
