import DuelStore

/// The newest announced state per topic that was sent here (see ``PlayerEvent/order``): a room's
/// state committed by this instance is sent from its own outbox, another instance's from NOTIFY,
/// and the two routes may cross, so an older state arriving after a newer one is dropped.
struct TopicOrder {
    private var newest: [String: Int64] = [:]
    /// Topics remembered at most: rooms and challenges come and go, and a forgotten topic only
    /// loses the check for a state that is already old.
    static let capacity = 20_000

    /// Whether `event` may be sent: it has no topic or order, or it is not older than the newest
    /// state of its topic sent so far (the same number: one transaction's events, in order).
    mutating func admit(_ event: PlayerEvent) -> Bool {
        guard let topic = event.topic, event.order > 0 else { return true }
        if let seen = newest[topic], seen > event.order { return false }
        if newest.count >= Self.capacity { newest.removeAll(keepingCapacity: true) }
        newest[topic] = event.order
        return true
    }
}
