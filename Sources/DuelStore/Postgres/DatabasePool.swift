import Foundation
import Logging

/// Dedicated threads, each owning one ``PGConnection``, that run database jobs.
///
/// Blocking libpq calls never run on the libwebsockets thread or in the Swift
/// concurrency pool: callers submit a job and get the result through a
/// completion (the server forwards it to its inbox) or an `async` call that
/// suspends without holding a pool thread.
///
/// A worker whose connection broke fails its job and reconnects with backoff;
/// while Postgres is down, jobs fail fast with a connection error instead of
/// queueing up without bound.
///
/// Jobs wait in three FIFO queues by ``Priority``. A worker takes the most urgent job
/// waiting; with three or more workers the first one takes only urgent jobs, so the
/// server's own work (matching, health, presence) never waits behind a burst of
/// requests, and at most half the workers run background jobs (anonymous reads) at once.
public final class DatabasePool: @unchecked Sendable {
    public typealias Job = @Sendable (PGConnection) -> Void

    public enum Priority: Int, Sendable, CaseIterable {
        /// The server's own work: matching, health, presence, delivery reads.
        case urgent
        /// Requests of players.
        case normal
        /// Reads anyone can make without signing in.
        case background
    }

    private let conninfo: String
    private let origin: String
    private let logger: Logger
    // Guards `jobs` and `closed`; workers wait on it for work.
    private let condition = NSCondition()
    private var queues = [JobQueue](repeating: JobQueue(), count: Priority.allCases.count)
    private var closed = false
    private var runningBackground = 0
    private let size: Int
    private let stopped = DispatchGroup()

    /// Starts `size` worker threads. Connections open lazily, on each worker's first job.
    /// - Parameter origin: tagged onto NOTIFY payloads of this pool's connections.
    public init(conninfo: String, size: Int, origin: String = "", logger: Logger = Logger(label: "quizduel.db")) {
        self.conninfo = conninfo
        self.origin = origin
        self.logger = logger
        self.size = max(1, size)
        for index in 0..<self.size {
            stopped.enter()
            let thread = Thread { [self] in
                self.work(urgentOnly: index == 0 && self.size >= 3)
                self.stopped.leave()
            }
            thread.name = "db-\(index)"
            thread.start()
        }
    }

    /// Queues `job`; `completion` runs on the worker thread with its result.
    public func submit<T>(
        priority: Priority = .normal,
        _ job: @escaping @Sendable (PGConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        enqueue(priority) { connection in
            completion(Result { try job(connection) })
        }
    }

    /// Runs `job` on a worker and suspends until it is done.
    public func run<T: Sendable>(_ job: @escaping @Sendable (PGConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit(job) { continuation.resume(with: $0) }
        }
    }

    /// Runs `job` on a worker and blocks the calling thread until it is done.
    /// Only for threads of the caller's own (startup, tests' helpers), never the lws thread.
    public func runBlocking<T: Sendable>(_ job: @escaping @Sendable (PGConnection) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        submit(job) { result in
            box.result = result
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    /// Finishes the queued jobs, then stops the workers and closes their connections.
    public func shutdown() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        stopped.wait()
    }

    private func enqueue(_ priority: Priority, _ job: @escaping Job) {
        condition.lock()
        if closed {
            condition.unlock()
            job(Self.closedConnection)
            return
        }
        queues[priority.rawValue].push(job)
        // One worker wakes (a broadcast woke all of them for every job); if it is the
        // reserved one and the job is not urgent, it passes the wake-up on (nextJob).
        condition.signal()
        condition.unlock()
    }

    /// The most urgent job this worker may take, waiting until there is one.
    private func nextJob(urgentOnly: Bool) -> (Job, Priority)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            for priority in Priority.allCases {
                if urgentOnly && priority != .urgent { break }
                if priority == .background && runningBackground >= max(1, size / 2) { break }
                if let job = queues[priority.rawValue].pop() {
                    if priority == .background { runningBackground += 1 }
                    return (job, priority)
                }
            }
            if closed && queues.allSatisfy(\.isEmpty) { return nil }
            if closed && urgentOnly && queues[Priority.urgent.rawValue].isEmpty { return nil }
            if urgentOnly && (!queues[Priority.normal.rawValue].isEmpty
                              || (!queues[Priority.background.rawValue].isEmpty && runningBackground < max(1, size / 2))) {
                condition.signal()
            }
            condition.wait()
        }
    }

    private func finished(_ priority: Priority) {
        guard priority == .background else { return }
        condition.lock()
        runningBackground -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func work(urgentOnly: Bool) {
        var connection: PGConnection?
        var backoff = Backoff()
        while let (job, priority) = nextJob(urgentOnly: urgentOnly) {
            defer { finished(priority) }
            if connection?.isOpen != true {
                connection = nil
                if backoff.mayTry(now: Date()) {
                    do {
                        connection = try PGConnection(conninfo)
                        connection?.notificationOrigin = origin
                        backoff.succeeded()
                    } catch {
                        backoff.failed(now: Date())
                        logger.warning("database connection failed", metadata: ["error": "\(error)"])
                    }
                }
            }
            job(connection ?? Self.closedConnection)
        }
        connection?.close()
    }

    /// A connection that fails every call: what jobs get while Postgres is unreachable.
    nonisolated(unsafe) private static let closedConnection: PGConnection = PGConnection(closed: ())
}

/// Exponential backoff between reconnection attempts: 100 ms doubling to 5 s.
struct Backoff {
    private var delay: TimeInterval = 0
    private var notBefore = Date.distantPast

    func mayTry(now: Date) -> Bool { now >= notBefore }

    mutating func failed(now: Date) {
        delay = delay == 0 ? 0.1 : min(5, delay * 2)
        notBefore = now.addingTimeInterval(delay)
    }

    mutating func succeeded() {
        delay = 0
        notBefore = .distantPast
    }
}

private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, Error>?
}

/// A FIFO of jobs that compacts itself now and then.
private struct JobQueue {
    private var jobs: [DatabasePool.Job] = []
    private var head = 0

    var isEmpty: Bool { head == jobs.count }

    mutating func push(_ job: @escaping DatabasePool.Job) { jobs.append(job) }

    mutating func pop() -> DatabasePool.Job? {
        guard head < jobs.count else { return nil }
        let job = jobs[head]
        head += 1
        if head > 1_024 && head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }
}
