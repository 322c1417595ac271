import DuelCore

/// Settling ended games apart from their rounds (docs/ARCHITECTURE.md, "Settling a finished
/// game"): on Citus everything they owe (issue 24), on plain Postgres their progress (issue 25,
/// ``ProgressSettler``).
extension DuelRepository {
    /// Settles what a lane's round recorded (`owed`, built from the states it just committed),
    /// in one transaction of its own, deletes the records (`duel_settlements`), and announces the
    /// round's events held back for it (`payloads`) at its end. The notifications granted and
    /// the rooms reopened go into `outbox`.
    ///
    /// On Citus the players' rows lie on their own shards, so this transaction commits on several
    /// with two phases: that is the one place a game's path pays for it, once per round that ended
    /// games, outside the round's own one-shard transaction.
    func settle(_ owed: DuelSettlements, announces: Bool, outbox: Outbox, payloads: [String] = []) throws {
        try settle(owed.duelIDs, known: owed, announces: announces, outbox: outbox, payloads: payloads)
    }

    /// Settles `duels`. The record's delete is what makes a debt settle once: two settling
    /// transactions wait for each other's delete, and the second finds nothing. The record
    /// names the state that owes (its input count): a state in `known` at that count is used as
    /// it is, any other is rebuilt from the duel's log up to that input, so that a settler whose
    /// state is older than the record (another instance ended the game meanwhile) settles the
    /// newer debt, and one whose state is newer leaves the rest to the newer record.
    private func settle(
        _ duels: [String], known: DuelSettlements, announces: Bool, outbox: Outbox, payloads: [String]
    ) throws {
        try outbox.transaction(on: db) { db in
            var claimed: [String: Int] = [:]
            var progressOnly: Set<String> = []
            for row in try db.query("""
                DELETE FROM duel_settlements WHERE duel_id = ANY(\(PGArray(duels))::uuid[])
                RETURNING duel_id::text AS id, version, progress_only
                """) {
                let id = try row.string("id")
                claimed[id] = try row.int("version")
                if try row.bool("progress_only") { progressOnly.insert(id) }
            }
            if !claimed.isEmpty {
                // A settlement spans its players' shards by design; an operator's or a test's
                // refusal of multi-shard statements (citus.multi_task_query_log_level) is meant
                // for the answer path, not for this.
                if progressOnly.count < claimed.count { try db.query("SET LOCAL citus.multi_task_query_log_level TO off") }
                let owed = try settlements(claimed, known: known, on: db)
                // A progress-only record's round wrote the rest (plain Postgres, migration 025).
                let whole = owed.keeping(Set(claimed.keys).subtracting(progressOnly))
                try whole.write(on: db, announces: announces, outbox: outbox)
                try owed.keeping(progressOnly).write(on: db, announces: announces, outbox: outbox, scope: .progressOnly)
            }
            if !payloads.isEmpty { try db.query(DuelWrites.notifyStatement(payloads)) }
        }
    }

    /// What the `claimed` records (duel → input count) owe, from `known` where it holds that
    /// state, else rebuilt from the log. A duel with no state to settle from fails the
    /// transaction: its record stays, and the sweep reports it, rather than the debt vanishing.
    private func settlements(_ claimed: [String: Int], known: DuelSettlements, on db: PGConnection) throws -> DuelSettlements {
        var settlements = known.keeping(Set(claimed.filter { known.version(of: $0.key) == $0.value }.keys))
        let rebuild = claimed.filter { known.version(of: $0.key) != $0.value }
        guard !rebuild.isEmpty else { return settlements }
        let ids = rebuild.keys.sorted()
        var banks: [String: Int] = [:]
        for row in try db.query("SELECT id::text AS id, bank_id FROM duels WHERE id = ANY(\(PGArray(ids))::uuid[])") {
            banks[try row.string("id")] = try row.int("bank_id")
        }
        let rebuilt = try DuelRepository(db).rebuildDuels(ids, upTo: rebuild)
        for id in ids {
            guard let state = rebuilt[id], state.version == rebuild[id], let bank = banks[id] else {
                throw StoreError(.internal, "duel \(id): no state at input \(rebuild[id]!) to settle from")
            }
            settlements.add(state.duel, duelID: id, bankID: bank, version: state.version, announce: true)
        }
        return settlements
    }

    /// Settles up to `limit` records that nobody settled (a crash or a failed transaction right
    /// after a lane's commit), each in its own transaction, oldest first: the sweep's second
    /// task. Records younger than `olderThanSeconds` are left to the lane that is settling them.
    /// Returns how many it settled and, per record that failed, why: a record that keeps failing
    /// is reported on every sweep and does not hold up the others. On plain Postgres the table
    /// holds only what a progress settler had not granted yet, usually nothing.
    public func settlePending(
        limit: Int = 100, olderThanSeconds: Int = 5, outbox: Outbox = Outbox()
    ) throws -> (settled: Int, failures: [String]) {
        let pending = try db.query("""
            SELECT duel_id::text AS id FROM duel_settlements
             WHERE recorded_at < now() - make_interval(secs => \(olderThanSeconds))
             ORDER BY recorded_at LIMIT \(limit)
            """).map { try $0.string("id") }
        var settled = 0
        var failures: [String] = []
        for id in pending {
            do {
                try settle([id], known: DuelSettlements(), announces: true, outbox: outbox, payloads: [])
                settled += 1
            } catch {
                failures.append("\(id): \(error)")
            }
        }
        return (settled, failures)
    }
}
