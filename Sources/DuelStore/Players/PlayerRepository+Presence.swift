import DuelCore

/// Presence across instances (migration 008): which live instances hold a connection
/// of each player, and the reaping of dead instances.
extension PlayerRepository {
    /// This instance holds a connection of `player` now. Returns whether another live
    /// instance holds one too; then it is told (NOTIFY `presence_shared`, payload the
    /// player), so that each announces the player's duel events to the other.
    @discardableResult
    public func markPresent(player: PlayerID, instance: String, aliveWithinMs: Int64 = 3_000, outbox: Outbox) throws -> Bool {
        let row = try db.query("""
            WITH here AS (
                INSERT INTO presence (player_id, instance) VALUES (\(player)::uuid, \(instance)) ON CONFLICT DO NOTHING),
            -- Back in time: a room member stays in the room.
            back AS (
                UPDATE room_members SET gone_since = NULL WHERE player_id = \(player)::uuid AND gone_since IS NOT NULL
                RETURNING room_id),
            elsewhere AS (
                SELECT EXISTS (
                    SELECT 1 FROM presence p JOIN instances i ON i.id = p.instance
                     WHERE p.player_id = \(player)::uuid AND p.instance <> \(instance)
                       AND i.heartbeat_at > now() - make_interval(secs => \(aliveWithinMs) / 1000.0)) AS shared)
            SELECT shared, CASE WHEN shared THEN pg_notify('presence_shared', \(player)) END AS told,
                   (SELECT room_id FROM back) AS back_in_room
              FROM elsewhere
            """)[0]
        // Room members see each other's `connected` in the lobby.
        if let room = row["back_in_room"].flatMap({ Int64($0) }) {
            try outbox.announcing(on: db) { try RoomRepository(db).announceRoom(id: room, into: outbox) }
        }
        return try row.bool("shared")
    }

    /// Re-registers every player this instance holds (after its instance row was reaped
    /// while it was alive, e.g. a long stall).
    public func markPresent(players: [PlayerID], instance: String) throws {
        guard !players.isEmpty else { return }
        try db.query("""
            WITH here AS (
                INSERT INTO presence (player_id, instance)
                SELECT p, \(instance) FROM unnest(\(PGArray(players.map { Optional($0) }))::uuid[]) AS p
                ON CONFLICT DO NOTHING)
            -- The reaping marked them gone from their rooms: they are here.
            UPDATE room_members SET gone_since = NULL
             WHERE gone_since IS NOT NULL AND player_id = ANY(\(PGArray(players.map { Optional($0) }))::uuid[])
            """)
    }

    /// This instance's last connection of `player` closed. Returns whether another live
    /// instance (heartbeat within `aliveWithinMs`) still holds one. When none does, a room
    /// member's absence starts counting (``leaveGoneMembers(afterMs:nowMs:)``).
    public func markAbsent(player: PlayerID, instance: String, aliveWithinMs: Int64 = 3_000, outbox: Outbox) throws -> Bool {
        let row = try db.query("""
            WITH gone AS (DELETE FROM presence WHERE player_id = \(player)::uuid AND instance = \(instance) RETURNING 1),
            -- The queue entry no longer belongs to this instance: if the player is still connected
            -- elsewhere, their duel must be announced (see claimPairs), and this instance's death
            -- must not take the entry with it.
            released AS (UPDATE match_queue SET instance = NULL
                          WHERE player_id = \(player)::uuid AND instance = \(instance) RETURNING 1),
            found AS (
                SELECT EXISTS (
                    SELECT 1 FROM presence p JOIN instances i ON i.id = p.instance
                     WHERE p.player_id = \(player)::uuid AND p.instance <> \(instance)
                       AND i.heartbeat_at > now() - make_interval(secs => \(aliveWithinMs) / 1000.0)) AS elsewhere),
            away AS (
                UPDATE room_members SET gone_since = now()
                 WHERE player_id = \(player)::uuid AND gone_since IS NULL AND NOT (SELECT elsewhere FROM found)
                RETURNING room_id)
            SELECT elsewhere, (SELECT room_id FROM away) AS away_from_room FROM found
            """)[0]
        if let room = row["away_from_room"].flatMap({ Int64($0) }) {
            try outbox.announcing(on: db) { try RoomRepository(db).announceRoom(id: room, into: outbox) }
        }
        return try row.bool("elsewhere")
    }

    /// Deletes the instances silent for `deadAfterMs`, with the presence rows they held;
    /// their queue entries go too, except those of players a live instance also holds,
    /// which stay queued and unclaimed. Returns the live duels of players no live instance holds any
    /// more: their presence must be reported gone. One caller wins each dead instance
    /// (the DELETE), so the report is made once.
    public func reapDeadInstances(deadAfterMs: Int64 = 10_000) throws -> [(player: PlayerID, duel: String)] {
        try db.transaction { db in
            let orphans = try db.query("""
                WITH dead AS (
                    DELETE FROM instances WHERE heartbeat_at < now() - make_interval(secs => \(deadAfterMs) / 1000.0)
                    RETURNING id),
                -- A dead instance's waiters go, unless a live instance holds them too: those stay
                -- queued, no longer claimed by the dead one.
                queued AS (DELETE FROM match_queue q WHERE q.instance IN (SELECT id FROM dead)
                             AND NOT EXISTS (SELECT 1 FROM presence x WHERE x.player_id = q.player_id
                                                AND x.instance NOT IN (SELECT id FROM dead))
                           RETURNING 1),
                released AS (UPDATE match_queue q SET instance = NULL WHERE q.instance IN (SELECT id FROM dead)
                               AND EXISTS (SELECT 1 FROM presence x WHERE x.player_id = q.player_id
                                              AND x.instance NOT IN (SELECT id FROM dead))
                             RETURNING 1),
                held AS (DELETE FROM presence WHERE instance IN (SELECT id FROM dead) RETURNING player_id),
                -- Room members nobody holds any more start their absence.
                away AS (UPDATE room_members m SET gone_since = now()
                          WHERE m.gone_since IS NULL AND m.player_id IN (SELECT player_id FROM held)
                            AND NOT EXISTS (SELECT 1 FROM presence x WHERE x.player_id = m.player_id
                                               AND x.instance NOT IN (SELECT id FROM dead)))
                SELECT DISTINCT h.player_id::text AS player
                  FROM held h
                 WHERE NOT EXISTS (SELECT 1 FROM presence x
                                    WHERE x.player_id = h.player_id AND x.instance NOT IN (SELECT id FROM dead))
                """).map { try $0.string("player") }
            guard !orphans.isEmpty else { return [] }
            // Their live duels in a statement of its own: on Citus the markers live on the
            // players' shards, and the statement above only on the coordinator (issue 24).
            return try db.query("""
                SELECT player_id::text AS player, duel_id::text AS duel FROM live_duel_players
                 WHERE player_id = ANY(\(PGArray(orphans))::uuid[])
                """).map { (try $0.string("player"), try $0.string("duel")) }
        }
    }

    /// Of `players`, those no live instance holds a connection of: a new game must start
    /// their abandonment clock (``DuelInput/disconnected(player:atMs:)``).
    public func absent(_ players: [PlayerID], aliveWithinMs: Int64 = 3_000) throws -> [PlayerID] {
        try db.query("""
            SELECT p::text AS player FROM unnest(\(PGArray(players.map { Optional($0) }))::uuid[]) AS p
             WHERE NOT EXISTS (SELECT 1 FROM presence x JOIN instances i ON i.id = x.instance
                                WHERE x.player_id = p
                                  AND i.heartbeat_at > now() - make_interval(secs => \(aliveWithinMs) / 1000.0))
            """).map { try $0.string("player") }
    }
}
