/// Deadlines by key (a duel id, or a periodic job): the bookkeeping behind the
/// server's one timer on the libwebsockets loop. Pure: time is an argument.
///
/// A key has at most one deadline. Replaced schedules leave stale heap entries
/// behind, skipped when they come up (cheaper than removing from the middle).
struct DeadlineSchedule {
    private var heap: [(dueMs: Int64, key: String)] = []
    private var scheduled: [String: Int64] = [:]
    /// Keys retried after a failure (``retry(_:atMs:firstDueMs:)``), with when they were first due.
    private var firstDue: [String: Int64] = [:]

    /// Keys with a deadline.
    var count: Int { scheduled.count }

    /// The earliest deadline, if any (may be a stale entry's: harmless, it wakes early).
    var nextDueMs: Int64? { heap.first?.dueMs }

    /// Schedules `key` at `dueMs`. With `replace`, any other deadline of the key is
    /// dropped (the caller knows the newest one); without, an earlier one stays.
    mutating func schedule(_ key: String, atMs dueMs: Int64, replace: Bool = false) {
        if let existing = scheduled[key], existing <= dueMs, !replace || existing == dueMs { return }
        // A newer deadline the caller knows of is not the retried one.
        if replace { firstDue[key] = nil }
        scheduled[key] = dueMs
        heap.append((dueMs, key))
        siftUp(heap.count - 1)
    }

    /// Schedules `key` again at `dueMs` after its deadline, first due at `firstDueMs`, failed:
    /// when it comes up, it reports that first due time, so that a retried deadline counts as
    /// late as it is rather than late from its retry.
    mutating func retry(_ key: String, atMs dueMs: Int64, firstDueMs: Int64) {
        schedule(key, atMs: dueMs)
        firstDue[key] = min(firstDue[key] ?? firstDueMs, firstDueMs)
    }

    mutating func cancel(_ key: String) {
        scheduled[key] = nil
        firstDue[key] = nil
    }

    /// Removes and returns the keys due at `nowMs`, earliest first.
    mutating func popDue(nowMs: Int64) -> [String] {
        popDueEntries(nowMs: nowMs).map(\.key)
    }

    /// ``popDue(nowMs:)`` with the time each key was due at (a retried key's first due time): how
    /// late a deadline is served is measured from it (`quizduel_deadline_lateness_seconds`).
    mutating func popDueEntries(nowMs: Int64) -> [(key: String, dueMs: Int64)] {
        var due: [(key: String, dueMs: Int64)] = []
        while let top = heap.first, top.dueMs <= nowMs {
            popTop()
            guard scheduled[top.key] == top.dueMs else { continue }
            scheduled[top.key] = nil
            due.append((top.key, firstDue.removeValue(forKey: top.key) ?? top.dueMs))
        }
        return due
    }

    private mutating func popTop() {
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

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard heap[index].dueMs < heap[parent].dueMs else { return }
            heap.swapAt(index, parent)
            index = parent
        }
    }
}
