/// Operators' requests to end duels (`ops.end_duel`, table `duel_commands`): a server
/// instance applies each through the rules engine and marks it done.
extension DuelRepository {
    /// Duels with an end request still pending that was made at least `olderThanMs` ago
    /// (fresh ones are being applied by whichever instance heard the NOTIFY).
    public func pendingDuelEnds(olderThanMs: Int) throws -> [String] {
        try db.query("""
            SELECT DISTINCT duel_id::text AS duel FROM duel_commands
             WHERE done_at IS NULL AND requested_at < now() - make_interval(secs => \(Double(olderThanMs) / 1_000))
            """).map { try $0.string("duel") }
    }

    /// The duel's end requests are applied (it ended, or was already over).
    public func markDuelEndsDone(duel: String) throws {
        try db.query("UPDATE duel_commands SET done_at = now() WHERE duel_id = \(duel)::uuid AND done_at IS NULL")
    }

    /// Hourly upkeep (`ops.archive_events`, and pruning notifications older than
    /// `notificationRetentionDays`), by one instance at a time: the others skip it.
    /// Returns the events archived, or nil when another instance holds the upkeep lock.
    public func runUpkeep(notificationRetentionDays: Int = 90) throws -> Int? {
        try db.transaction { db in
            guard try db.query("SELECT pg_try_advisory_xact_lock(727340002) AS mine")[0].bool("mine") else { return nil }
            try db.query("SELECT ops.prune_notifications(make_interval(days => \(notificationRetentionDays)))")
            return try db.query("SELECT ops.archive_events() AS n")[0].int("n")
        }
    }
}
