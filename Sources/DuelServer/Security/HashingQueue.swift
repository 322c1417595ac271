import Foundation

/// The password-hashing threads and their bounded, fair queue (see ``FairQueue``).
/// Jobs run off both the lws thread and the Swift concurrency pool.
final class HashingQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: FairQueue<@Sendable () -> Void>
    private var closed = false

    init(threads: Int, total: Int, perAddress: Int) {
        queue = FairQueue(total: total, perKey: perAddress)
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in
                while let (key, job) = next() {
                    job()
                    condition.lock()
                    queue.finished(key: key)
                    condition.unlock()
                }
            }
            thread.name = "argon2-\(index)"
            thread.start()
        }
    }

    /// Queues a job for `connection` from `address`; false when the bounds refuse it
    /// (the caller answers at once).
    func submit(address: String, connection: UInt64, _ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !closed, queue.enqueue(key: address, owner: connection, job) else { return false }
        condition.signal()
        return true
    }

    /// The connection closed: its waiting jobs (and the passwords they hold) go.
    func drop(connection: UInt64) {
        condition.lock()
        queue.removeAll(owner: connection)
        condition.unlock()
    }

    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.queuedCount
    }

    func shutdown() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func next() -> (String, @Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { return nil }
            if let (key, job) = queue.dequeue() { return (key, job) }
            condition.wait()
        }
    }
}
