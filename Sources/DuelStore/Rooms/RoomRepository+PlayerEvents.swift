import DuelCore

/// Events for players rather than for a duel's seats: rooms, challenges and rematch
/// offers. They go through NOTIFY `player_events` (payload: the player ids, comma-separated,
/// a line break, then the event's text), which every instance hears and delivers to the
/// connections it holds of those players. A NOTIFY is sent at commit, so a rolled-back
/// change announces nothing, and every instance hears announcements in commit order.
///
/// These events are not stored: a client that was away asks again (the room comes with
/// `auth`'s follow-up events, challenges with `challenges`).
extension RoomRepository {
    public static let playerEventsChannel = "player_events"

    /// Announces `text` to `players` at the caller's commit. Postgres limits a payload to
    /// 8,000 bytes; a room of four with the longest names is under 1,500.
    func notifyPlayers(_ players: [PlayerID], _ text: String) throws {
        var seen = Set<PlayerID>()
        let unique = players.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return }
        try db.query("SELECT pg_notify(\(Self.playerEventsChannel), \(unique.joined(separator: ",") + "\n" + text))")
    }
}

extension RoomRepository {
    /// Announces ready-made `player_events` payloads (notifications a game granted whose player
    /// is held by another instance), in one statement.
    public func announcePlayerEvents(_ payloads: [String]) throws {
        try db.query("SELECT pg_notify(\(Self.playerEventsChannel), p) FROM unnest(\(PGArray(payloads.map { Optional($0) }))::text[]) AS p")
    }
}
