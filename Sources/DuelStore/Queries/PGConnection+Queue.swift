import DuelCore

extension PGConnection {
    /// Puts a player in a bank's queue; returns the enqueue time (ms since 1970).
    ///
    /// Refuses with `unknown_bank`, `bank_empty`, `in_duel` or `already_queued`,
    /// changing nothing. Announces the new entry on channel `match_queue` so every
    /// instance's matcher looks at the bank at once.
    public func enqueue(player: PlayerID, bank slug: String) throws -> Int64 {
        try transaction { connection in
            guard let bank = try connection.bank(slug: slug) else { throw StoreError(.unknownBank) }
            guard bank.questions > 0 else { throw StoreError(.bankEmpty) }
            if try !connection.query("SELECT 1 FROM live_duel_players WHERE player_id = \(player)::uuid").isEmpty {
                throw StoreError(.inDuel)
            }
            if try !connection.query("SELECT 1 FROM match_queue WHERE player_id = \(player)::uuid").isEmpty {
                throw StoreError(.alreadyQueued)
            }
            try connection.query("""
                INSERT INTO ratings (player_id, bank_id) VALUES (\(player)::uuid, \(bank.id))
                ON CONFLICT DO NOTHING
                """)
            let row: PGRow
            do {
                row = try connection.query("""
                    INSERT INTO match_queue (player_id, bank_id, rating)
                    SELECT \(player)::uuid, \(bank.id), rating FROM ratings
                     WHERE player_id = \(player)::uuid AND bank_id = \(bank.id)
                    RETURNING \(unsafeRaw: SQLTime.ms("enqueued_at")) AS at
                    """)[0]
            } catch {
                // Two queue requests of one player racing: the second one loses here.
                if (error as? PGError)?.sqlState == PGError.Code.uniqueViolation { throw StoreError(.alreadyQueued) }
                throw error
            }
            try connection.query("SELECT pg_notify('match_queue', \(String(bank.id)))")
            return try row.int64("at")
        }
    }

    /// Removes the player's queue entry; false when there was none (already matched).
    @discardableResult
    public func cancelQueue(player: PlayerID) throws -> Bool {
        try !query("DELETE FROM match_queue WHERE player_id = \(player)::uuid RETURNING 1").isEmpty
    }

    /// Ids of the banks that have at least two waiting players.
    public func banksWithWaitingPairs() throws -> [Int] {
        try query("SELECT bank_id FROM match_queue GROUP BY bank_id HAVING count(*) >= 2").map { try $0.int("bank_id") }
    }

    /// Waiting players per bank slug (for metrics).
    public func queueLengths() throws -> [String: Int] {
        var lengths: [String: Int] = [:]
        for row in try query("""
            SELECT b.slug, count(q.player_id) AS n FROM banks b LEFT JOIN match_queue q ON q.bank_id = b.id GROUP BY b.slug
            """) {
            lengths[try row.string("slug")] = try row.int("n")
        }
        return lengths
    }

    /// Claims compatible pairs of one bank's queue and creates their duels, in one transaction.
    ///
    /// Rows are locked with `FOR UPDATE SKIP LOCKED`, so matchers of many
    /// instances can run at once: each sees only rows no other matcher holds, and
    /// a player is paired at most once. Returns the new duels (with their `init`
    /// events, already stored and announced).
    public func claimPairs(
        bankID: Int,
        policy: MatchPolicy,
        configuration: DuelConfiguration,
        nowMs: Int64,
        batch: Int = 500
    ) throws -> [DuelUpdate] {
        try transaction { connection in
            let rows = try connection.query("""
                SELECT player_id::text AS player, rating, \(unsafeRaw: SQLTime.ms("enqueued_at")) AS at,
                       \(unsafeRaw: SQLTime.ms("clock_timestamp()")) AS now
                  FROM match_queue WHERE bank_id = \(bankID)
                 ORDER BY enqueued_at
                 LIMIT \(batch)
                   FOR UPDATE SKIP LOCKED
                """)
            guard rows.count >= 2 else { return [] }
            // Waiting time is measured on the database's clock, where enqueue times come from.
            let databaseNow = try rows[0].int64("now")
            let entries = try rows.map {
                QueueEntry(player: try $0.string("player"), rating: try $0.double("rating"), enqueuedAtMs: try $0.int64("at"))
            }
            let pairs = policy.pairs(entries, nowMs: databaseNow).map { (a: $0.0.player, b: $0.1.player) }
            guard !pairs.isEmpty else { return [] }
            try connection.query("""
                DELETE FROM match_queue WHERE player_id = ANY(\(PGArray(pairs.flatMap { [$0.a, $0.b] }))::uuid[])
                """)
            let created = try connection.createDuels(
                bankID: bankID, pairs: pairs, configuration: configuration, nowMs: nowMs
            ).map(\.update)
            return created
        }
    }
}
