import Foundation

/// The timers of one ``ClientLoop``: a binary min-heap by due time (µs on the
/// monotonic clock), touched only on the loop's thread.
///
/// Bots run as callbacks on the loop thread rather than as Tasks, so their
/// waits (ramp-up, think time, request timeouts, the run's end) are entries here
/// instead of sleeping Tasks.
struct LoopTimers {
    private struct Entry {
        let due: UInt64
        /// Insertion order: timers due at the same µs run in the order they were added.
        let order: UInt64
        let body: () -> Void

        func before(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : order < other.order
        }
    }

    private var heap: [Entry] = []
    private var added: UInt64 = 0

    var nextDue: UInt64? { heap.first?.due }
    var isEmpty: Bool { heap.isEmpty }

    mutating func add(due: UInt64, _ body: @escaping () -> Void) {
        added += 1
        heap.append(Entry(due: due, order: added, body: body))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].before(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest timer if it is due at `now`.
    mutating func popDue(now: UInt64) -> (() -> Void)? {
        guard let first = heap.first, first.due <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < heap.count, heap[left].before(heap[smallest]) { smallest = left }
                if right < heap.count, heap[right].before(heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first.body
    }
}

/// Microseconds on the monotonic clock.
func monotonicMicros() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
}
