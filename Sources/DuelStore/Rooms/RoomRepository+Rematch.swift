import DuelCore

/// Rematch after a ranked duel (migration 012): when both players ask within the window, a
/// new ranked duel starts. Offers live in `rematch_offers`; `duels.rematch_of` is unique, so
/// one duel is rematched at most once however the two requests interleave.
extension RoomRepository {
    public func rematch(
        player: PlayerID, duel id: String, windowMs: Int64, configuration: DuelConfiguration, nowMs: Int64,
        outbox: Outbox
    ) throws -> RematchResult {
        guard UUIDText.isValid(id) else { throw StoreError(.unknownDuel) }
        return try outbox.transaction(on: db) { db in
            // The duel's row lock orders the two players' requests.
            guard let row = try db.query("""
                SELECT player_a::text AS a, player_b::text AS b, more_players::text AS more, mode, state, bank_id,
                       finish_reason, \(unsafeRaw: SQLTime.ms("now()")) AS now_ms,
                       \(unsafeRaw: SQLTime.ms("finished_at + make_interval(secs => \(windowMs) / 1000.0)")) AS closes_ms
                  FROM duels d WHERE id = \(id)::uuid FOR UPDATE
                """).first else { throw StoreError(.unknownDuel) }
            // Under that lock, and a statement of its own: on Citus the rematch may sit on any
            // shard, and Citus refuses a locking statement that reads more than one.
            let rematched = try !db.query("SELECT 1 FROM duels WHERE rematch_of = \(id)::uuid LIMIT 1").isEmpty
            let players = try row.seats()
            guard players.contains(player) else { throw StoreError(.notInDuel) }
            guard try row.string("mode") == DuelMode.ranked.rawValue else {
                throw StoreError(.badRequest, "duel_id: only ranked duels have rematches")
            }
            guard try row.string("state") == "finished" else {
                throw StoreError(.badRequest, "duel_id: the duel is not over")
            }
            guard !rematched else {
                throw StoreError(.badRequest, "duel_id: that duel was already rematched")
            }
            // An operator ended it: unrated, and no rematch either.
            guard row["finish_reason"] != FinishReason.ended.rawValue else {
                throw StoreError(.badRequest, "duel_id: an operator ended that duel")
            }
            // Both ask within the window after the end ("Continue"), not days later.
            // Compared here, on the database's clock: on Citus the same comparison in the statement,
            // with the window as a parameter, found every duel too old (issue 24's cluster test).
            guard try row.int64("now_ms") < row.int64("closes_ms") else {
                throw StoreError(.badRequest, "duel_id: too late for a rematch")
            }
            let opponent = players.first { $0 != player }!
            try PlayerRepository(db).lockPlayers(players)
            try checkFree(player)
            try db.query("DELETE FROM rematch_offers WHERE duel_id = \(id)::uuid AND expires_at <= now()")
            let waiting = try !db.query("""
                SELECT 1 FROM rematch_offers WHERE duel_id = \(id)::uuid AND player_id = \(opponent)::uuid
                """).isEmpty
            guard waiting else {
                // The offer closes with the window; not read back with RETURNING, which Citus
                // refuses for a time computed from the row.
                let expires = try row.int64("closes_ms")
                try db.query("""
                    INSERT INTO rematch_offers (duel_id, player_id, expires_at)
                    VALUES (\(id)::uuid, \(player)::uuid, to_timestamp(\(expires) / 1000.0))
                    ON CONFLICT (duel_id, player_id) DO UPDATE SET expires_at = excluded.expires_at
                    """)
                outbox.add(players, Self.rematchEvent(
                    type: "INSERT", duel: id, from: player, state: "offered", expiresAtMs: expires, newDuel: nil,
                    nowMs: nowMs), topic: "rematch:" + id)
                return .offered(expiresAtMs: expires)
            }
            try checkFree([opponent], requester: player)
            let created = try DuelRepository(db).createGames(
                bankID: try row.int("bank_id"), games: [players], mode: .ranked, configuration: configuration,
                nowMs: nowMs, rematchOf: id)[0]
            try db.query("DELETE FROM rematch_offers WHERE duel_id = \(id)::uuid")
            outbox.add(players, Self.rematchEvent(
                type: "UPDATE", duel: id, from: player, state: "accepted", expiresAtMs: nil,
                newDuel: created.update.duelID, nowMs: nowMs), topic: "rematch:" + id)
            return .started(created.update, absent: try PlayerRepository(db).absent(players))
        }
    }

    /// Offers past their window go, with an UPDATE (`expired`) to both players.
    @discardableResult
    public func expireRematchOffers(nowMs: Int64, outbox: Outbox) throws -> Int {
        try outbox.transaction(on: db) { db in
            let expired = try db.query("""
                WITH due AS (
                    DELETE FROM rematch_offers
                     WHERE (duel_id, player_id) IN (SELECT duel_id, player_id FROM rematch_offers
                                                     WHERE expires_at <= now() LIMIT 500 FOR UPDATE SKIP LOCKED)
                    RETURNING duel_id, player_id, expires_at)
                SELECT due.duel_id::text AS duel, due.player_id::text AS player,
                       \(unsafeRaw: SQLTime.ms("due.expires_at")) AS at,
                       d.player_a::text AS a, d.player_b::text AS b, d.more_players::text AS more
                  FROM due JOIN duels d ON d.id = due.duel_id
                """)
            for row in expired {
                outbox.add(try row.seats(), Self.rematchEvent(
                    type: "UPDATE", duel: try row.string("duel"), from: try row.string("player"), state: "expired",
                    expiresAtMs: try row.int64("at"), newDuel: nil, nowMs: nowMs), topic: "rematch:" + (try row.string("duel")))
            }
            return expired.count
        }
    }

    /// The `rematch` event (`"table":"rematches"`).
    static func rematchEvent(
        type: String, duel: String, from: PlayerID, state: String, expiresAtMs: Int64?, newDuel: String?, nowMs: Int64
    ) -> String {
        ServerMessage.rowEvent(
            "rematch", table: "rematches", type: type, atMs: nowMs,
            record: .object([
                "duel_id": .string(duel),
                "from": .string(from),
                "state": .string(state),
                "expires_at": expiresAtMs.map { .string(Timestamp.iso8601(ms: $0)) } ?? .null,
                "new_duel_id": newDuel.map { .string($0) } ?? .null,
            ]),
            serverTimeMs: nowMs)
    }
}
