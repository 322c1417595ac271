import Foundation

/// Wakes duels at their stored deadlines: a heap of (time, duel) on a thread of its own.
///
/// Firing only submits the engine's `advance` to the database; the transition is
/// conditional on the state under the row lock, so when several instances fire
/// for one duel the first wins and the rest change nothing.
final class TimerThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var heap: [(dueMs: Int64, key: String)] = []
    private var scheduled: [String: Int64] = [:]
    private var closed = false
    private let fire: @Sendable (String, Int64) -> Void

    /// `fire(key, dueMs)` runs on the timer thread: keep it short (submit work elsewhere).
    init(fire: @escaping @Sendable (String, Int64) -> Void) {
        self.fire = fire
        let thread = Thread { [self] in run() }
        thread.name = "timers"
        thread.start()
    }

    /// Schedules `key` at `dueMs`. With `replace`, any earlier or later schedule of
    /// the key is dropped (the caller knows the newest deadline); without, only a
    /// later one is.
    func schedule(_ key: String, atMs dueMs: Int64, replace: Bool = false) {
        condition.lock()
        defer { condition.unlock() }
        if let existing = scheduled[key], existing <= dueMs, !replace || existing == dueMs { return }
        scheduled[key] = dueMs
        heap.append((dueMs, key))
        siftUp(heap.count - 1)
        condition.signal()
    }

    /// Drops the schedule of `key` (its duel finished).
    func cancel(_ key: String) {
        condition.lock()
        scheduled[key] = nil
        condition.unlock()
    }

    var pending: Int {
        condition.lock()
        defer { condition.unlock() }
        return scheduled.count
    }

    func shutdown() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !closed {
            guard let top = heap.first else {
                condition.wait()
                continue
            }
            let now = Clock.nowMs()
            if top.dueMs > now {
                condition.wait(until: Date(timeIntervalSince1970: Double(top.dueMs) / 1_000))
                continue
            }
            popTop()
            // A replaced (earlier or later) schedule leaves stale heap entries; skip them.
            guard scheduled[top.key] == top.dueMs else { continue }
            scheduled[top.key] = nil
            condition.unlock()
            fire(top.key, top.dueMs)
            condition.lock()
        }
        condition.unlock()
    }

    private func popTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var index = 0
        while true {
            let left = 2 * index + 1, right = left + 1
            var smallest = index
            if left < heap.count, heap[left].dueMs < heap[smallest].dueMs { smallest = left }
            if right < heap.count, heap[right].dueMs < heap[smallest].dueMs { smallest = right }
            if smallest == index { return }
            heap.swapAt(index, smallest)
            index = smallest
        }
    }

    private func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard heap[index].dueMs < heap[parent].dueMs else { return }
            heap.swapAt(index, parent)
            index = parent
        }
    }
}

/// The server's clock: wall time in ms since 1970 (deadlines are stored in this unit,
/// so every instance on one database must keep its clock synchronized, as NTP does).
enum Clock {
    static func nowMs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
