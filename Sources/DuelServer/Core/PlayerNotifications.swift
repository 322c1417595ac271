import DuelCore
import DuelStore
import Logging

/// Player events: events for players rather than duels (rooms, challenges, rematch offers,
/// stored notifications, queue evictions), sent to the connections held here. The one place
/// they reach connections from (issue 22, one delivery route): the ``Outbox`` of this
/// instance's committed transactions (database jobs and lane batches), and other instances'
/// outboxes as they announced them (NOTIFY `player_events`); this instance's own announcements,
/// heard back, are skipped. lws thread only.
final class PlayerNotifications: @unchecked Sendable {
    private let connections: ConnectionTable
    private let replies: Replies
    /// This instance's id: the origin of its own announcements.
    private let instance: String
    /// Per topic (a room, a challenge, a rematch offer), the number of the newest state sent
    /// here: an older state that arrives later by the other route is dropped.
    private var newest = TopicOrder()

    init(connections: ConnectionTable, replies: Replies, instance: String) {
        self.connections = connections
        self.replies = replies
        self.instance = instance
    }

    /// Sends `text` to every connection of `player` here.
    func send(_ text: String, to player: PlayerID) {
        for connection in connections.connections(of: player) { replies.send(connection, text) }
    }

    /// What this instance's committed transactions had for players.
    func deliver(_ outbox: Outbox) {
        for event in outbox.events { deliver(event) }
    }

    /// NOTIFY `player_events` from any instance, this one included (skipped: it delivered its
    /// own outbox already), or from an operator's SQL.
    func playerEventsNotified(_ payload: String) {
        guard let event = PlayerEvent(payload: payload), event.origin != instance else { return }
        deliver(event)
    }

    private func deliver(_ event: PlayerEvent) {
        guard newest.admit(event) else { return }
        for player in event.players { send(event.text, to: player) }
    }

    /// After a sign-in's reply: the player's room, if any, and the challenges waiting for
    /// them, as events (a challenge made while they were away reaches them here).
    func sendWaiting(_ waiting: WaitingSocial, to connection: Connection) {
        let now = Clock.nowMs()
        if let room = waiting.room { replies.send(connection, room.event(type: "UPDATE", nowMs: now)) }
        for challenge in waiting.challenges.reversed() { replies.send(connection, challenge.event(type: "INSERT", nowMs: now)) }
    }

    /// Players of this instance whose bank can no longer fill a duel were taken out of its
    /// queue (NOTIFY `queue_evictions`, payload `<slug>:<player>,…`): tell them.
    func queueEvictionsNotified(_ payload: String) {
        guard let colon = payload.firstIndex(of: ":") else { return }
        let slug = payload[..<colon]
        for player in payload[payload.index(after: colon)...].split(separator: ",") {
            for connection in connections.connections(of: String(player)) {
                replies.fail(connection, nil, ProtocolError(
                    .bankEmpty, "bank '\(slug)' has too few active questions for a duel; you left its queue"))
            }
        }
    }
}
