import DuelCore
import Synchronization

/// Duel states that readers replayed from the input log (``DuelRepository/derivedEvents(_:replays:)``),
/// shared by an instance's pool connections: the next read of the same duel replays only the
/// inputs logged since, not the whole game from its start.
///
/// Another instance's game is announced in many small notifications, and each read derives the
/// events after the last one delivered here: without these states every read would decode the
/// start and replay the whole log so far (a game's cost growing with the square of its length,
/// bench/plans/derive-events.md). Behind a lock: pool threads read and publish at once. Bounded:
/// past `limit` the oldest-published duels go, and their next read replays from the start.
public final class DuelReplays: Sendable {
    /// A committed state of a duel, the number of inputs it has applied, and the last seq of the
    /// duel's start (events up to it are stored, not replayed).
    public struct Entry: Sendable {
        public let version: Int
        public let duel: Duel
        public let startSeq: Int
    }

    private struct Storage {
        var entries: [String: Entry] = [:]
        var order: [String] = []
        var head = 0
    }

    private let storage = Mutex(Storage())
    public let limit: Int

    public init(limit: Int = 2_000) {
        self.limit = limit
    }

    func latest(of id: String) -> Entry? {
        storage.withLock { $0.entries[id] }
    }

    /// Keeps `entry` unless a state of the same duel with more inputs is already kept.
    func publish(_ entry: Entry) {
        let id = entry.duel.id
        storage.withLock { storage in
            if let kept = storage.entries[id] {
                if kept.version < entry.version { storage.entries[id] = entry }
                return
            }
            storage.entries[id] = entry
            storage.order.append(id)
            while storage.entries.count > limit, storage.head < storage.order.count {
                storage.entries[storage.order[storage.head]] = nil
                storage.head += 1
            }
            if storage.head > 1_024 && storage.head * 2 > storage.order.count {
                storage.order.removeFirst(storage.head)
                storage.head = 0
            }
        }
    }
}
