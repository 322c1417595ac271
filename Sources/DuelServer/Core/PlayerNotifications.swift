import DuelCore
import DuelStore
import Logging

/// Player notifications: events for players rather than duels (rooms, challenges, rematch
/// offers, stored notifications, queue events) sent to their connections here, whoever
/// announced them. A game's notifications come from its completing transaction: sent here to
/// the player's connections, or announced on `player_events` for the instance that holds them.
/// lws thread only.
final class PlayerNotifications: @unchecked Sendable {
    private let connections: ConnectionTable
    private let replies: Replies
    private let jobs: ServerJobs
    private let logger: Logger

    init(connections: ConnectionTable, replies: Replies, jobs: ServerJobs, logger: Logger) {
        self.connections = connections
        self.replies = replies
        self.jobs = jobs
        self.logger = logger
    }

    /// Sends `text` to every connection of `player` here.
    func send(_ text: String, to player: PlayerID) {
        for connection in connections.connections(of: player) { replies.send(connection, text) }
    }

    /// NOTIFY `player_events` from any instance, this one included: send the event to the
    /// connections held here of the players it names.
    func playerEventsNotified(_ payload: String) {
        guard let note = PlayerEventNotification(payload: payload) else { return }
        for player in note.players { send(note.text, to: player) }
    }

    /// A game's notifications (issue 14), stored by its completing transaction.
    func deliverGameNotifications(_ payloads: [String]) {
        var elsewhere: [String] = []
        for payload in payloads {
            guard let player = PlayerEventNotification(payload: payload)?.players.first else { continue }
            if connections.directory.connections(of: player).isEmpty { elsewhere.append(payload) } else {
                playerEventsNotified(payload)
            }
        }
        guard !elsewhere.isEmpty else { return }
        let payloads = elsewhere
        jobs.database(for: nil, priority: .background, { db in try RoomRepository(db).announcePlayerEvents(payloads) }) { [self] _, result in
            if case .failure(let error) = result {
                logger.warning("could not announce notifications", metadata: ["error": "\(error)"])
            }
        }
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
