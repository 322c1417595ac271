import DuelCore
import Foundation

/// A player's progress and statistics (issue 22). Runs on the connection it is given and keeps
/// no state.
///
/// Progress a student can see (issue 14): time zone, weekly goals, notifications, the rating
/// chart, statistics and achievements. What games grant is written by `record_progress`
/// (sql/functions/public.record_progress.sql) inside the transaction that finishes them (``DuelWrites``).
public struct ProgressRepository {
    /// The connection every query runs on.
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    /// Sets the zone streak days and weeks are counted in; `bad_request` naming `time_zone`
    /// for a name Postgres does not know.
    public func setTimeZone(player: PlayerID, _ name: String) throws {
        // Postgres knows the zones (its tz database): an unknown one is 22023.
        let known = try db.query("""
            SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = \(name)) AS known
            """)[0].bool("known")
        guard known else { throw StoreError(.badRequest, "time_zone: unknown time zone \(name)") }
        // The zone may change once in 24 hours (issue 23): hopping between Etc/GMT+12 and
        // Pacific/Kiritimati made two streak days a minute apart. The same zone again is no
        // change; the first change from the default is free. The new moment comes through
        // excluded (the now() inserted): Citus refuses a function call in an upsert's SET.
        // The moment a day ago is read first and bound: Citus refuses a function call in the
        // WHERE of an upsert (and timestamptz - interval is one).
        let dayAgo = try db.query("SELECT (now() - interval '24 hours')::text AS at")[0].string("at")
        let changed = try db.query("""
            INSERT INTO player_progress AS p (player_id, time_zone, time_zone_set_at) VALUES (\(player)::uuid, \(name), now())
            ON CONFLICT (player_id) DO UPDATE SET time_zone = excluded.time_zone,
                time_zone_set_at = CASE WHEN p.time_zone = excluded.time_zone THEN p.time_zone_set_at
                                        ELSE excluded.time_zone_set_at END
             WHERE p.time_zone = excluded.time_zone
                OR p.time_zone_set_at IS NULL OR p.time_zone_set_at <= \(dayAgo)::timestamptz
            RETURNING 1
            """)
        guard !changed.isEmpty else {
            throw StoreError(.rateLimited, "time_zone: it can change once a day; it stays as it is until then")
        }
    }

    /// Sets (or replaces) a goal for the player's current week; returns every goal of the week.
    public func setGoal(player: PlayerID, _ goal: GoalDraft) throws -> [JSONValue] {
        try db.transaction { db in
            var bankID: Int?
            if let slug = goal.bank {
                guard let row = try db.query("""
                    SELECT id FROM banks b WHERE slug = \(slug) AND \(unsafeRaw: BankSummary.playable("b", by: player))
                    """).first else { throw StoreError(.unknownBank) }
                bankID = try row.int("id")
            }
            try db.query("INSERT INTO player_progress (player_id) VALUES (\(player)::uuid) ON CONFLICT DO NOTHING")
            // Setting a goal again changes its target, but a goal reached this week stays reached:
            // its XP is given once (resetting it let a player raise the target after each game and
            // be paid again). A goal this week's games already meet is reached at once, without
            // XP: the XP is for the game that reaches it. set_at comes through excluded (the
            // column's default, now()): Citus refuses a function call in an upsert's SET.
            // The week and whether the goal is already met are read first, each in a statement of
            // its own: on Citus a query sent to the player's shard cannot call goal_reached, which
            // reads another table.
            let me = try db.query("""
                SELECT time_zone, player_week(now(), time_zone)::text AS week,
                       \(unsafeRaw: SQLTime.ms("now()")) AS now_ms,
                       \(unsafeRaw: Self.dueMs(week: "player_week(now(), time_zone)", zone: "time_zone")) AS due_ms
                  FROM player_progress WHERE player_id = \(player)::uuid
                """)[0]
            let week = try me.string("week"), zone = try me.string("time_zone")
            // A reminder comes before the goal is due, and after now: one in the past would never
            // be sent (the reminder job sends only before the due time).
            var remindAt: String?
            if case .at(let ms) = goal.reminder {
                let now = try me.int64("now_ms"), due = try me.int64("due_ms")
                guard ms > now, ms <= due else {
                    throw StoreError(.badRequest, "remind_at: must lie between now and the goal's due time, \(Timestamp.iso8601(ms: due))")
                }
                remindAt = Timestamp.iso8601(ms: ms)
            }
            let keepReminder = goal.reminder == .keep
            let reached = try db.query("""
                SELECT goal_reached(\(player)::uuid, \(goal.kind.rawValue), \(bankID)::int, \(week)::date, \(zone),
                                    \(goal.target)::int) AS reached
                """)[0].bool("reached")
            try db.query("""
                INSERT INTO weekly_goals (player_id, week_start, kind, bank_id, target, reached_at, remind_at)
                VALUES (\(player)::uuid, \(week)::date, \(goal.kind.rawValue), \(bankID), \(goal.target),
                        CASE WHEN \(reached) THEN now() END, \(remindAt)::timestamptz)
                ON CONFLICT (player_id, week_start, kind, coalesce(bank_id, 0))
                DO UPDATE SET target = excluded.target, set_at = excluded.set_at,
                              reached_at = coalesce(weekly_goals.reached_at, excluded.reached_at),
                              remind_at = CASE WHEN \(keepReminder) THEN weekly_goals.remind_at ELSE excluded.remind_at END,
                              reminded_at = CASE WHEN \(keepReminder) THEN weekly_goals.reminded_at END
                """)
            return try goals(player: player)
        }
    }

    /// The player's goals of the current week, with progress.
    public func goals(player: PlayerID) throws -> [JSONValue] {
        // Each goal's progress in a statement of its own: on Citus the goals' query runs on the
        // player's shard, where goal_progress (which reads game_progress) cannot be called.
        try db.query("""
            SELECT w.kind, b.slug AS bank, w.bank_id, w.target, w.reached_at IS NOT NULL AS reached,
                   w.week_start::text AS week, p.time_zone, \(unsafeRaw: SQLTime.ms("w.remind_at")) AS remind_ms,
                   w.reminded_at IS NOT NULL AS reminded,
                   \(unsafeRaw: Self.dueMs(week: "w.week_start", zone: "p.time_zone")) AS due_ms
              FROM weekly_goals w JOIN player_progress p ON p.player_id = w.player_id
              LEFT JOIN banks b ON b.id = w.bank_id
             WHERE w.player_id = \(player)::uuid AND w.week_start = player_week(now(), p.time_zone)
             ORDER BY w.set_at
            """).map { row in
            let kind = try row.string("kind"), week = try row.string("week")
            let progress = try db.query("""
                SELECT goal_progress(\(player)::uuid, \(kind), \(row["bank_id"])::int, \(week)::date,
                                     \(try row.string("time_zone"))) AS progress
                """)[0].int("progress")
            return .object([
                "kind": .string(kind), "bank": row["bank"].map { .string($0) } ?? .null,
                "target": .number(try row.int("target")), "progress": .number(progress),
                "reached": .bool(try row.bool("reached")), "week_start": .string(week),
                "due_at": .string(Timestamp.iso8601(ms: try row.int64("due_ms"))),
                "remind_at": try row.optionalInt64("remind_ms").map { .string(Timestamp.iso8601(ms: $0)) } ?? .null,
                "reminded": .bool(try row.bool("reminded")),
            ])
        }
    }

    /// The player's notifications, newest first (`before`: older than that id), and how many
    /// are unseen.
    public func notifications(player: PlayerID, limit: Int, before: Int64?) throws -> JSONObject {
        let items = try db.query("""
            SELECT notification_json(n.id, n.kind, n.data, n.created_at)::text AS record FROM notifications n
             WHERE n.player_id = \(player)::uuid AND (\(before)::bigint IS NULL OR n.id < \(before))
             ORDER BY n.id DESC LIMIT \(limit)
            """).map { try JSONParser.parse(try $0.string("record")) }
        return ["notifications": .array(items), "unseen": .number(try unseenCount(player: player))]
    }

    /// Marks the player's notifications up to `upTo` seen (never back); returns the unseen count.
    public func notificationsSeen(player: PlayerID, upTo: Int64) throws -> Int {
        try db.query("""
            INSERT INTO player_progress (player_id, notifications_seen) VALUES (\(player)::uuid, \(upTo))
            ON CONFLICT (player_id) DO UPDATE
               SET notifications_seen = greatest(player_progress.notifications_seen, excluded.notifications_seen)
            """)
        return try unseenCount(player: player)
    }

    func unseenCount(player: PlayerID) throws -> Int {
        try db.query("""
            SELECT count(*) AS n FROM notifications n
             WHERE n.player_id = \(player)::uuid
               AND n.id > coalesce((SELECT notifications_seen FROM player_progress WHERE player_id = \(player)::uuid), 0)
            """)[0].int("n")
    }

    /// Points for a rating-over-time chart: the player's last `limit` rated games in the bank,
    /// oldest first, each with the rating after it (and the start, 1500, is the client's).
    public func ratingHistory(player: PlayerID, bank slug: String, limit: Int) throws -> [JSONValue] {
        let bank = try QuizRepository(db).visibleBank(slug: slug, viewer: player)
        // The history row's own time is the game's finish: both are the now() of the transaction
        // that finished it. Read from the row alone: on Citus the history lives on the player's
        // shard and the duel on its own, which one query cannot join without repartitioning.
        return try db.query("""
            SELECT * FROM (
                SELECT h.duel_id::text AS duel, \(unsafeRaw: SQLTime.ms("h.created_at")) AS at,
                       round(h.rating_before) AS before, round(h.rating_after) AS after, h.outcome
                  FROM rating_history h
                 WHERE h.player_id = \(player)::uuid AND h.bank_id = \(bank.id)
                 ORDER BY h.created_at DESC LIMIT \(limit)) last
             ORDER BY at
            """).map { row in
            .object([
                "duel_id": .string(try row.string("duel")),
                "at": .string(Timestamp.iso8601(ms: try row.int64("at"))),
                "rating_before": .number(try row.int("before")), "rating": .number(try row.int("after")),
                "outcome": .string(try row.string("outcome")),
            ])
        }
    }

    /// Accuracy, mean answer time and games by mode, of every game or of one bank's.
    public func stats(player: PlayerID, bank slug: String?) throws -> JSONObject {
        var bankID: Int?
        if let slug {
            bankID = try QuizRepository(db).visibleBank(slug: slug, viewer: player).id
        }
        let answers = try db.query("""
            SELECT count(*) AS answers, count(*) FILTER (WHERE a.correct) AS correct,
                   coalesce(round(avg(a.elapsed_ms)), 0) AS mean_ms
              FROM duel_answers a JOIN duels d ON d.id = a.duel_id
             WHERE a.player_id = \(player)::uuid AND (\(bankID)::int IS NULL OR d.bank_id = \(bankID))
            """)[0]
        let games = try db.query("""
            SELECT coalesce(sum(questions), 0) AS asked, coalesce(sum(correct), 0) AS right FROM game_progress
             WHERE player_id = \(player)::uuid AND (\(bankID)::int IS NULL OR bank_id = \(bankID))
            """)[0]
        let asked = try games.int("asked"), right = try games.int("right")
        var modes = JSONObject(DuelMode.allCases.map { ($0.rawValue, .number(0)) })
        for row in try db.query("""
            SELECT mode, count(*) AS n FROM game_progress
             WHERE player_id = \(player)::uuid AND (\(bankID)::int IS NULL OR bank_id = \(bankID))
             GROUP BY mode
            """) {
            modes[try row.string("mode")] = .number(try row.int("n"))
        }
        return [
            "bank": slug.map { .string($0) } ?? .null,
            "answers": .number(try answers.int("answers")), "correct": .number(try answers.int("correct")),
            "questions_asked": .number(asked),
            // Right answers over questions asked in finished games (an unanswered one counts as
            // missed); null before the first finished game.
            "accuracy": asked > 0 ? .decimal((Double(right) / Double(asked) * 1000).rounded() / 1000) : .null,
            "mean_answer_ms": .number(try answers.int("mean_ms")),
            "games_by_mode": .object(modes),
        ]
    }

    /// Every achievement, in order, with when the player earned it (null: locked).
    public func achievements(player: PlayerID) throws -> [JSONValue] {
        try db.query("""
            SELECT a.code, a.title, a.description,
                   \(unsafeRaw: SQLTime.ms("pa.granted_at")) AS at
              FROM achievements a
              LEFT JOIN player_achievements pa ON pa.code = a.code AND pa.player_id = \(player)::uuid
             ORDER BY a.sort
            """).map { row in
            .object([
                "code": .string(try row.string("code")), "title": .string(try row.string("title")),
                "description": .string(try row.string("description")),
                "earned_at": try row.optionalInt64("at").map { .string(Timestamp.iso8601(ms: $0)) } ?? .null,
            ])
        }
    }

    /// Stores a notification for `player` and puts it in `outbox` (`notify_player`,
    /// sql/functions/public.notify_player.sql), announced with the transaction's other events.
    func notify(_ player: PlayerID, kind: String, into outbox: Outbox, _ data: JSONObject) throws {
        let payload = try db.query("""
            SELECT notify_player(\(player)::uuid, \(kind), \(JSONValue.object(data).serialized)::jsonb, false) AS payload
            """)[0].string("payload")
        outbox.add(notification: payload, announce: true)
    }

    /// Grants a player an achievement outside a game (publishing a quiz); once, with a
    /// notification in `outbox`.
    func grantAchievement(_ player: PlayerID, _ code: String, into outbox: Outbox) throws {
        let payload = try db.query("SELECT grant_achievement(\(player)::uuid, \(code), false) AS payload")[0]
            .optionalString("payload")
        if let payload { outbox.add(notification: payload, announce: true) }
    }
}
