import Synchronization

/// Work handed to the lws thread from other threads: a locked list of closures,
/// drained whole on each wake-up (wake-ups coalesce, so one drain may serve many posts).
final class Inbox: Sendable {
    typealias Item = @Sendable () -> Void
    private let items = Mutex<[Item]>([])

    /// Appends `item`; returns true when the inbox was empty (the caller should wake the loop).
    @discardableResult
    func post(_ item: @escaping Item) -> Bool {
        items.withLock { items in
            items.append(item)
            return items.count == 1
        }
    }

    func drain() -> [Item] {
        items.withLock { items in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }
}
