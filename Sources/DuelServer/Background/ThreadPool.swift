import Foundation

/// A few threads for blocking CPU work (password hashing) that must stay off
/// both the lws thread and the Swift concurrency pool.
final class ThreadPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var closed = false

    init(threads: Int, name: String) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in
                while let job = next() { job() }
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func shutdown() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !closed { condition.wait() }
        return jobs.isEmpty ? nil : jobs.removeFirst()
    }
}
