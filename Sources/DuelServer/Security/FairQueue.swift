/// Jobs queued per key (a client address), taken in turn across keys, within bounds.
///
/// Password hashing is deliberately slow (Argon2id), so its queue is where one client
/// could make everyone wait: 1,000 pipelined signups from one address once held an
/// unrelated login for 12.6 s. Here each address waits behind its own jobs only, no
/// address holds more than `perKey` jobs (queued or running), the whole queue holds at
/// most `total`, and a closed connection's jobs can be dropped before they run. Pure:
/// ``HashingQueue`` adds the threads.
struct FairQueue<Job> {
    struct Entry {
        let owner: UInt64
        let job: Job
    }

    let total: Int
    let perKey: Int
    /// Waiting jobs by key, and the keys with waiting jobs in the order they are served.
    private var waiting: [String: [Entry]] = [:]
    private var turns: [String] = []
    /// Queued plus running jobs by key (the per-key bound counts both).
    private var held: [String: Int] = [:]
    private(set) var queuedCount = 0

    init(total: Int, perKey: Int) {
        self.total = total
        self.perKey = perKey
    }

    /// Queues the job, or returns false when the queue or the key is full.
    mutating func enqueue(key: String, owner: UInt64, _ job: Job) -> Bool {
        guard queuedCount < total, held[key, default: 0] < perKey else { return false }
        if waiting[key] == nil { turns.append(key) }
        waiting[key, default: []].append(Entry(owner: owner, job: job))
        held[key, default: 0] += 1
        queuedCount += 1
        return true
    }

    /// The next job: the oldest of the key whose turn it is. The caller reports its end
    /// with ``finished(key:)``.
    mutating func dequeue() -> (key: String, job: Job)? {
        guard !turns.isEmpty else { return nil }
        let key = turns.removeFirst()
        var entries = waiting[key]!
        let entry = entries.removeFirst()
        queuedCount -= 1
        if entries.isEmpty {
            waiting[key] = nil
        } else {
            waiting[key] = entries
            turns.append(key)  // back of the line: the other keys go first
        }
        return (key, entry.job)
    }

    mutating func finished(key: String) {
        guard let count = held[key] else { return }
        held[key] = count > 1 ? count - 1 : nil
    }

    /// Drops the waiting jobs of `owner` (its connection closed); returns how many.
    @discardableResult
    mutating func removeAll(owner: UInt64) -> Int {
        var removed = 0
        for key in Array(waiting.keys) {
            let before = waiting[key]!
            let kept = before.filter { $0.owner != owner }
            guard kept.count != before.count else { continue }
            removed += before.count - kept.count
            for _ in 0..<(before.count - kept.count) { finished(key: key) }
            if kept.isEmpty {
                waiting[key] = nil
                turns.removeAll { $0 == key }
            } else {
                waiting[key] = kept
            }
        }
        queuedCount -= removed
        return removed
    }
}
