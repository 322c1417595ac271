import DuelCore
import DuelStore

/// Stored events that lie ahead of the clock, held back per duel until their `at_ms`.
///
/// The round that reveals a question also opens the next one, stamped at the reveal pause's end
/// (issue 25: no round of its own for the opening), so its `question` event is stored two
/// seconds before it happens. No connection may see it before then: the prompt would reach a
/// player early. A later event of the same duel that is due (a forfeit's `complete` during the
/// pause) releases what is held before it, so each connection still gets every seq in order.
/// Pure: time is an argument; ``DuelDelivery`` owns one (in ``DuelBook``) and wakes up for
/// ``nextDueMs``.
struct HeldEvents {
    private var held: [String: (players: [PlayerID], events: [StoredEvent])] = [:]
    /// Each held duel's first event time, in a heap: a release looks at the duels due, not at
    /// every duel in its pause (a scan of all of them per release cost 2 % of the server's CPU).
    private var schedule = DeadlineSchedule()

    /// Duels with events held.
    var count: Int { held.count }

    /// The earliest time a held event comes due, if any (possibly a little early: harmless).
    var nextDueMs: Int64? { schedule.nextDueMs }

    /// Splits one duel's events, increasing by seq: those up to the last one due at `nowMs` go
    /// now, the rest (all ahead of the clock) wait.
    static func split(_ events: [StoredEvent], nowMs: Int64) -> (due: ArraySlice<StoredEvent>, ahead: ArraySlice<StoredEvent>) {
        let cut = (events.lastIndex { $0.atMs <= nowMs }).map { $0 + 1 } ?? events.startIndex
        return (events[..<cut], events[cut...])
    }

    /// Adds one duel's `events` (increasing by seq) to what it holds, and returns what is due at
    /// `nowMs` of the two together, in seq order, each seq once, with everyone they are for:
    /// `players` and whoever the held ones were for (a gap fill for one player may bring out an
    /// event held for all). The rest stays held for all of them.
    mutating func admit(_ events: [StoredEvent], players: [PlayerID], nowMs: Int64)
        -> (events: [StoredEvent], players: [PlayerID]) {
        guard let duel = events.first?.duelID else { return ([], players) }
        // The common case, on every delivery: nothing held, nothing ahead.
        if held[duel] == nil, events[events.count - 1].atMs <= nowMs { return (events, players) }
        let (merged, everyone) = merge(events, players: players)
        let (due, ahead) = Self.split(merged, nowMs: nowMs)
        if !ahead.isEmpty { store(duel, everyone, Array(ahead)) }
        return (Array(due), everyone)
    }

    /// Holds one duel's `events`, all ahead of the clock, with what it holds of the duel; they
    /// come out of ``popDue(nowMs:)`` (or with a later event of the duel, ``admit(_:players:nowMs:)``).
    mutating func hold(_ events: [StoredEvent], players: [PlayerID]) {
        guard let duel = events.first?.duelID else { return }
        let merged = merge(events, players: players)
        store(duel, merged.players, merged.events)
    }

    /// The earliest time one of a duel's held events comes due.
    func firstDueMs(of duel: String) -> Int64? {
        held[duel]?.events.first?.atMs
    }

    /// Removes and returns the duels with an event due at `nowMs`, with what is due of each.
    mutating func popDue(nowMs: Int64) -> [(players: [PlayerID], events: [StoredEvent])] {
        schedule.popDue(nowMs: nowMs).compactMap { duel in
            guard let entry = held.removeValue(forKey: duel) else { return nil }
            return (entry.players, admit(entry.events, players: entry.players, nowMs: nowMs).events)
        }
    }

    /// Forgets a duel's held events (every connection of it is gone, or it finished).
    mutating func drop(_ duel: String) {
        held[duel] = nil
        schedule.cancel(duel)
    }

    private mutating func store(_ duel: String, _ players: [PlayerID], _ events: [StoredEvent]) {
        held[duel] = (players, events)
        schedule.schedule(duel, atMs: events[0].atMs, replace: true)
    }

    /// Takes out what is held of the duel of `events`, and returns both together: by seq, each
    /// seq once, for both sets of players.
    private mutating func merge(_ events: [StoredEvent], players: [PlayerID]) -> (events: [StoredEvent], players: [PlayerID]) {
        guard let waiting = held.removeValue(forKey: events[0].duelID) else { return (events, players) }
        schedule.cancel(events[0].duelID)
        // Few events on either side.
        var merged: [StoredEvent] = []
        for event in (waiting.events + events).sorted(by: { $0.seq < $1.seq }) where merged.last?.seq != event.seq {
            merged.append(event)
        }
        return (merged, waiting.players + players.filter { !waiting.players.contains($0) })
    }
}
