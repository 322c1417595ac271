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
public final class DatabasePool: @unchecked Sendable {
    public typealias Job = @Sendable (PGConnection) -> Void

    private let conninfo: String
    private let origin: String
    private let logger: Logger
    // Guards `jobs` and `closed`; workers wait on it for work.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var jobsHead = 0
    private var closed = false
    private var running = 0
    private let stopped = DispatchGroup()

    /// Starts `size` worker threads. Connections open lazily, on each worker's first job.
    /// - Parameter origin: tagged onto NOTIFY payloads of this pool's connections.
    public init(conninfo: String, size: Int, origin: String = "", logger: Logger = Logger(label: "quizduel.db")) {
        self.conninfo = conninfo
        self.origin = origin
        self.logger = logger
        for index in 0..<max(1, size) {
            stopped.enter()
            let thread = Thread { [self] in
                self.work()
                self.stopped.leave()
            }
            thread.name = "db-\(index)"
            thread.start()
        }
    }

    /// Queues `job`; `completion` runs on the worker thread with its result.
    public func submit<T>(
        _ job: @escaping @Sendable (PGConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        enqueue { connection in
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

    private func enqueue(_ job: @escaping Job) {
        condition.lock()
        if closed {
            condition.unlock()
            job(Self.closedConnection)
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func nextJob() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while jobsHead == jobs.count && !closed { condition.wait() }
        guard jobsHead < jobs.count else { return nil }
        let job = jobs[jobsHead]
        jobsHead += 1
        // Compact now and then so the array does not grow forever.
        if jobsHead > 1_024 && jobsHead * 2 > jobs.count {
            jobs.removeFirst(jobsHead)
            jobsHead = 0
        }
        return job
    }

    private func work() {
        var connection: PGConnection?
        var backoff = Backoff()
        while let job = nextJob() {
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
