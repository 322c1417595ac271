import DuelCore

/// The engine states one database connection last committed, by duel, with the
/// version (`duels.inputs`) each belongs to.
///
/// Owned by the connection, so only the thread that owns the connection touches
/// it: no lock. A state is used only when the row locked in the transaction has
/// the same version. When another instance moved the duel on, the state catches up by the
/// inputs logged since its version; a duel without a state is rebuilt from its stored base
/// state and whole input log. Bounded: past `limit` the oldest entries go (a state that left is
/// rebuilt from the log when needed again).
///
/// With a state it keeps the duel's bank id once a transaction has read it: a round whose duels
/// are all cached with their banks can then be written before it knows their versions
/// (``DuelRepository/applyCachedRound(_:lane:outbox:)``).
struct DuelCache {
    typealias Entry = (version: Int, duel: Duel, bankID: Int?)
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var orderHead = 0
    let limit: Int

    init(limit: Int = 20_000) {
        self.limit = limit
    }

    var count: Int { entries.count }

    func state(of id: String, version: Int) -> Duel? {
        guard let entry = entries[id], entry.version == version else { return nil }
        return entry.duel
    }

    /// The last state committed for `id`, whatever its version now is in the database.
    func latest(of id: String) -> Entry? {
        entries[id]
    }

    /// Finished duels are kept too: the opponent's answer that arrives just after
    /// the last reveal would otherwise rebuild the whole duel only to be refused.
    /// But only the last `finishedLimit` of them: a finished duel is rarely touched
    /// again, and full states of thousands of them were most of the cache's memory.
    mutating func remember(_ duel: Duel, version: Int, bankID: Int? = nil) {
        let previous = entries.updateValue((version, duel, bankID ?? entries[duel.id]?.bankID), forKey: duel.id)
        if previous == nil {
            order.append(duel.id)
            evictIfFull()
        }
        // Listed once, when it first finishes (late inputs remember it again).
        if duel.phase == .finished && previous?.duel.phase != .finished {
            finished.append(duel.id)
            if finished.count > finishedLimit {
                let oldest = finished.removeFirst()
                if entries[oldest]?.duel.phase == .finished { entries[oldest] = nil }
            }
        }
    }

    private var finished: [String] = []
    let finishedLimit = 1_000

    /// Drops the oldest-inserted entries beyond the limit (ids of finished duels
    /// still in `order` are skipped and simply fall out).
    private mutating func evictIfFull() {
        while entries.count > limit, orderHead < order.count {
            entries[order[orderHead]] = nil
            orderHead += 1
        }
        if orderHead > 4_096 && orderHead * 2 > order.count {
            order = order.filter { entries[$0] != nil }
            orderHead = 0
        }
    }
}
