import DuelCore

/// Settling ended games on Citus (issue 24; docs/ARCHITECTURE.md, "Settling a finished game").
extension DuelRepository {
    /// Settles what a lane's round recorded (`owed`, built from the states it just committed),
    /// in one transaction of its own, and deletes the records (`duel_settlements`). The
    /// notifications granted and the rooms reopened go into `outbox`.
    ///
    /// On Citus the players' rows lie on their own shards, so this transaction commits on several
    /// with two phases: that is the one place a game's path pays for it, once per round that ended
    /// games, outside the round's own one-shard transaction.
    func settle(_ owed: DuelSettlements, announces: Bool, outbox: Outbox) throws {
        try settle(owed.duelIDs, known: owed, announces: announces, outbox: outbox)
    }

    /// Settles `duels`: those in `known` as recorded there, the others rebuilt from their logs. A
    /// duel whose record is gone (settled already, by its lane or the sweep) is skipped: the
    /// record's delete is what makes a game settle once, since two settling transactions wait
    /// for each other's delete and the second finds nothing.
    private func settle(_ duels: [String], known: DuelSettlements, announces: Bool, outbox: Outbox) throws {
        try outbox.transaction(on: db) { db in
            let claimed = Set(try db.query("""
                DELETE FROM duel_settlements WHERE duel_id = ANY(\(PGArray(duels))::uuid[]) RETURNING duel_id::text AS id
                """).map { try $0.string("id") })
            guard !claimed.isEmpty else { return }
            // A settlement spans its players' shards by design; an operator's or a test's
            // refusal of multi-shard statements (citus.multi_task_query_log_level) is meant for
            // the answer path, not for this.
            try db.query("SET LOCAL citus.multi_task_query_log_level TO off")
            var settlements = known.keeping(claimed)
            let missing = duels.filter { claimed.contains($0) && !known.duelIDs.contains($0) }
            if !missing.isEmpty {
                var banks: [String: Int] = [:]
                for row in try db.query("""
                    SELECT id::text AS id, bank_id FROM duels WHERE id = ANY(\(PGArray(missing))::uuid[])
                    """) {
                    banks[try row.string("id")] = try row.int("bank_id")
                }
                let rebuilt = try DuelRepository(db).rebuildDuels(missing)
                for id in missing {
                    guard let duel = rebuilt[id]?.duel, let bank = banks[id] else { continue }
                    settlements.add(duel, duelID: id, bankID: bank, announce: true)
                }
            }
            try settlements.write(on: db, announces: announces, outbox: outbox)
        }
    }

    /// Settles up to `limit` recorded settlements that nobody settled (a crash or a failed
    /// transaction right after a lane's commit): the sweep's second task. Returns how many it
    /// found. On plain Postgres the table stays empty and this is one probe of an empty index.
    public func settlePending(limit: Int = 100, announces: Bool = true, outbox: Outbox = Outbox()) throws -> Int {
        let pending = try db.query("""
            SELECT duel_id::text AS id FROM duel_settlements ORDER BY recorded_at LIMIT \(limit)
            """).map { try $0.string("id") }
        for id in pending { try settle([id], known: DuelSettlements(), announces: announces, outbox: outbox) }
        return pending.count
    }
}
