import DuelCore

/// Goal reminders (issue 27, item 7): a goal of the week may carry a time the player chose;
/// at that time the server sends them a `goal_reminder` notification, once.
extension ProgressRepository {
    /// SQL for when a goal of the week starting at column `week` is due, as epoch ms
    /// (sql/functions/public.goal_due.sql).
    static func dueMs(week: String, zone: String) -> String {
        SQLTime.ms("goal_due(\(week), \(zone))")
    }

    /// Sends every reminder due at `nowMs` (the job passes the server's clock; tests pass any
    /// time) and returns how many it sent. Each is sent once: `reminded_at` is set in the
    /// transaction that stores the notification, and the UPDATE's row locks make a second
    /// instance running the job at the same moment skip the rows the first took. A reminder
    /// whose goal is reached, or whose week ended while no instance ran, is marked and not sent:
    /// it has nothing left to remind of.
    @discardableResult
    public func sendReminders(nowMs: Int64, outbox: Outbox) throws -> Int {
        try outbox.transaction(on: db) { db in
            let now = Timestamp.iso8601(ms: nowMs)
            // RETURNING plain columns (their text as Postgres prints them): Citus refuses a cast to
            // text there, which depends on the session's settings.
            let due = try db.query("""
                UPDATE weekly_goals SET reminded_at = \(now)::timestamptz
                 WHERE reminded_at IS NULL AND remind_at <= \(now)::timestamptz
                RETURNING player_id AS player, kind, bank_id, target, week_start AS week, reached_at IS NOT NULL AS reached
                """)
            var sent = 0
            for goal in due where try !goal.bool("reached") {
                let player = try goal.string("player"), kind = try goal.string("kind"), week = try goal.string("week")
                // The player's zone and the bank's name in a statement of their own: on Citus the
                // UPDATE above runs on every shard, this one on the player's.
                let me = try db.query("""
                    SELECT p.time_zone, b.slug AS bank,
                           (extract(epoch FROM goal_due(\(week)::date, p.time_zone)) * 1000)::bigint AS due_ms
                      FROM player_progress p LEFT JOIN banks b ON b.id = \(goal["bank_id"])::int
                     WHERE p.player_id = \(player)::uuid
                    """)[0]
                let dueAt = try me.int64("due_ms")
                guard nowMs < dueAt else { continue }
                let progress = try db.query("""
                    SELECT goal_progress(\(player)::uuid, \(kind), \(goal["bank_id"])::int, \(week)::date,
                                         \(try me.string("time_zone"))) AS progress
                    """)[0].int("progress")
                try notify(player, kind: "goal_reminder", into: outbox, [
                    "kind": .string(kind), "bank": me.optionalString("bank").map { .string($0) } ?? .null,
                    "target": .number(try goal.int("target")), "progress": .number(progress),
                    "due_at": .string(Timestamp.iso8601(ms: dueAt)),
                ])
                sent += 1
            }
            return sent
        }
    }
}
