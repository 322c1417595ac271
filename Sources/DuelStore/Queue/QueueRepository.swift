import DuelCore

/// The match queue (issue 22): joining and leaving it, the matcher's claims of pairs, its
/// lengths for metrics, and the eviction of waiters whose bank can no longer start a duel.
/// Runs on the connection it is given and keeps no state.
public struct QueueRepository {
    /// The connection every query runs on.
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    /// Puts a player in a bank's queue; returns the enqueue time (ms since 1970).
    ///
    /// Refuses with `unknown_bank`, `bank_empty` (fewer than `questionsNeeded`
    /// active questions), `in_duel` or `already_queued`, changing nothing.
    /// No NOTIFY: the instance that took the request runs its matcher at once (and
    /// every instance looks every 250 ms). A NOTIFY takes Postgres's global notify
    /// lock from its commit to the end of the WAL flush, and with it every queueing
    /// and every announcing commit waited in one line. One statement, one round trip: every
    /// check and write happens in it, and a second request of the same player
    /// racing this one finds the queue's primary key taken.
    public func enqueue(player: PlayerID, bank slug: String, questionsNeeded: Int = 1, instance: String = "") throws -> Int64 {
        try Self.enqueued(db.query(Self.enqueueQuery(player: player, bank: slug, questionsNeeded: questionsNeeded,
                                                     instance: instance))[0], questionsNeeded: questionsNeeded)
    }

    /// Several players' requests to queue (``enqueue(player:bank:questionsNeeded:instance:)``
    /// each), in one round trip and one transaction (issue 25): at human pace every `queue` was a
    /// transaction of its own, a commit and a WAL flush and the wake-ups of both sides for one
    /// row. Returns one result per request, in order. The statements run in the requests' order
    /// and each sees what the earlier ones wrote, so a player's second request in the batch is
    /// `already_queued`, as it would be one request after the other. An error that is not a
    /// refusal (the transaction failed) sends each request again in a transaction of its own, so
    /// that one failing request fails alone; a lost connection fails them all.
    public func enqueue(_ requests: [(player: PlayerID, bank: String)], questionsNeeded: Int = 1,
                        instance: String = "") -> [Result<Int64, Error>] {
        let queries = requests.map {
            Self.enqueueQuery(player: $0.player, bank: $0.bank, questionsNeeded: questionsNeeded, instance: instance)
        }
        guard queries.count > 1 else {
            return requests.map { request in
                Result { try enqueue(player: request.player, bank: request.bank, questionsNeeded: questionsNeeded, instance: instance) }
            }
        }
        do {
            return try db.pipeline(queries).map { rows in Result { try Self.enqueued(rows[0], questionsNeeded: questionsNeeded) } }
        } catch {
            guard !error.isConnectionFailure else { return requests.map { _ in .failure(error) } }
            return requests.map { request in
                Result { try enqueue(player: request.player, bank: request.bank, questionsNeeded: questionsNeeded, instance: instance) }
            }
        }
    }

    /// The one statement of a request to queue: every check and both writes.
    private static func enqueueQuery(player: PlayerID, bank slug: String, questionsNeeded: Int, instance: String) -> SQLQuery {
        """
        WITH b AS (
            SELECT id, (SELECT count(*) FROM (SELECT 1 FROM questions q WHERE q.bank_id = banks.id AND q.active
                                              LIMIT \(questionsNeeded)) enough) AS active
              FROM banks WHERE slug = \(slug) AND retired_at IS NULL
               AND \(unsafeRaw: BankSummary.inMatchmaking("banks"))),
        player AS (
            SELECT EXISTS (SELECT 1 FROM live_duel_players WHERE player_id = \(player)::uuid) AS in_duel,
                   EXISTS (SELECT 1 FROM match_queue WHERE player_id = \(player)::uuid) AS queued,
                   EXISTS (SELECT 1 FROM room_members WHERE player_id = \(player)::uuid) AS in_room),
        go AS (
            SELECT b.id FROM b, player
             WHERE b.active >= \(questionsNeeded) AND NOT player.in_duel AND NOT player.queued AND NOT player.in_room),
        rated AS (
            -- Only the first queue of a bank writes the row: an INSERT that meets it still
            -- builds ratings' eight CHECKs first (bench/NOTES.md, item 36).
            INSERT INTO ratings (player_id, bank_id) SELECT \(player)::uuid, id FROM go
             WHERE NOT EXISTS (SELECT 1 FROM ratings WHERE player_id = \(player)::uuid AND bank_id = go.id)
            ON CONFLICT DO NOTHING
            RETURNING 1),
        queued AS (
            INSERT INTO match_queue (player_id, bank_id, rating, instance)
            SELECT \(player)::uuid, go.id,
                   coalesce((SELECT rating FROM ratings WHERE player_id = \(player)::uuid AND bank_id = go.id), 1500),
                   nullif(\(instance), '')
              FROM go
            ON CONFLICT DO NOTHING
            RETURNING bank_id, \(unsafeRaw: SQLTime.ms("enqueued_at")) AS at)
        SELECT (SELECT id FROM b) AS bank, (SELECT active FROM b) AS active,
               (SELECT in_duel FROM player) AS in_duel, (SELECT in_room FROM player) AS in_room,
               (SELECT at FROM queued) AS at
        """
    }

    /// The enqueue time from the statement's row, or the refusal it says.
    private static func enqueued(_ row: PGRow, questionsNeeded: Int) throws -> Int64 {
        if let at = try row.optionalInt64("at") { return at }
        guard row["bank"] != nil else { throw StoreError(.unknownBank) }
        guard try row.int("active") >= questionsNeeded else { throw StoreError(.bankEmpty) }
        if try row.bool("in_duel") { throw StoreError(.inDuel) }
        if try row.bool("in_room") { throw StoreError(.inRoom) }
        throw StoreError(.alreadyQueued)
    }

    /// Removes the player's queue entry; false when there was none (already matched).
    @discardableResult
    public func cancelQueue(player: PlayerID) throws -> Bool {
        try !db.query("DELETE FROM match_queue WHERE player_id = \(player)::uuid RETURNING 1").isEmpty
    }

    /// Ids of the banks that have at least two waiting players.
    public func banksWithWaitingPairs() throws -> [Int] {
        try db.query("SELECT bank_id FROM match_queue GROUP BY bank_id HAVING count(*) >= 2 ORDER BY bank_id").map { try $0.int("bank_id") }
    }

    /// The metrics' label under which every player's quiz is summed (a slug cannot start with `_`).
    public static let playerQuizzesLabel = "_player_quizzes"

    /// Waiting players per operator bank's slug, and in all players' quizzes together under
    /// ``playerQuizzesLabel`` (for metrics): a series per quiz grew with what players made,
    /// private quizzes included (issue 23). Every instance asks once a second, so it reads the
    /// operators' banks (a partial index, migration 027), the waiting players, and of the
    /// players' quizzes only those someone waits in: a join over every bank took 24-30 ms among
    /// 100,000 quizzes.
    public func queueLengths() throws -> [String: Int] {
        var lengths: [String: Int] = [:]
        for row in try db.query("""
            SELECT b.slug, count(q.player_id) AS n
              FROM banks b LEFT JOIN match_queue q ON q.bank_id = b.id
             WHERE b.owner_id IS NULL
             GROUP BY b.slug
             UNION ALL
            -- A lookup of each waiting player's bank by its key: as a join, the plan hashed
            -- every bank.
            SELECT \(Self.playerQuizzesLabel), count(*)
              FROM match_queue q
             WHERE (SELECT b.owner_id FROM banks b WHERE b.id = q.bank_id) IS NOT NULL
            """) {
            lengths[try row.string("slug"), default: 0] += try row.int("n")
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
        batch: Int = 500,
        shared: Set<PlayerID> = [],
        instance: String = ""
    ) throws -> [DuelUpdate] {
        try db.transaction { connection in
            let rows = try connection.query("""
                SELECT player_id::text AS player, rating, instance, \(unsafeRaw: SQLTime.ms("enqueued_at")) AS at,
                       \(unsafeRaw: SQLTime.ms("clock_timestamp()")) AS now
                  FROM match_queue
                 WHERE bank_id = \(bankID)
                   -- This instance's own waiters; others' once they could pair across
                   -- instances (MatchPolicy.crossInstanceAfterMs). The instance that
                   -- holds both players creates their duel, so its state, timers and
                   -- deliveries stay where the inputs arrive.
                   AND (instance IS NULL OR instance = \(instance) OR \(instance) = ''
                        OR enqueued_at < now() - make_interval(secs => \(policy.crossInstanceAfterMs) / 1000.0))
                 ORDER BY enqueued_at
                 LIMIT \(batch)
                   FOR UPDATE SKIP LOCKED
                """)
            guard rows.count >= 2 else { return [] }
            // Waiting time is measured on the database's clock, where enqueue times come from.
            let databaseNow = try rows[0].int64("now")
            // A waiter who started a practice game at the same moment (the two requests raced)
            // stays queued, locked by this pass, until it ends, instead of failing the whole
            // bank's pass. A statement of its own, not a subquery of the claim: on Citus the queue
            // sits on the coordinator and the live markers on the players' shards, and Citus
            // cannot lock rows of a query that joins the two (issue 24).
            let claimed = try rows.map { try $0.string("player") }
            let playing = Set(try connection.query("""
                SELECT player_id::text AS player FROM live_duel_players WHERE player_id = ANY(\(PGArray(claimed))::uuid[])
                """).map { try $0.string("player") })
            let entries = try rows.compactMap { row -> QueueEntry? in
                let player = try row.string("player")
                guard !playing.contains(player) else { return nil }
                return QueueEntry(player: player, rating: try row.double("rating"), enqueuedAtMs: try row.int64("at"),
                                  instance: row.optionalString("instance"))
            }
            let games = policy.pairs(entries, nowMs: databaseNow).map { [$0.0.player, $0.1.player] }
            guard !games.isEmpty else { return [] }
            try connection.query("""
                DELETE FROM match_queue WHERE player_id = ANY(\(PGArray(games.flatMap { $0 }))::uuid[])
                """)
            // Another instance must hear of a duel unless this one holds both players (the
            // queue rows say where each waits) and neither is also connected elsewhere.
            let instances = Dictionary(entries.map { ($0.player, $0.instance) }, uniquingKeysWith: { first, _ in first })
            let created = try DuelRepository(connection).createGames(
                bankID: bankID, games: games, mode: .ranked, configuration: configuration, nowMs: nowMs,
                announce: { game in
                    instance.isEmpty
                        || Announcement.needed(players: game, heldHere: { instances[$0] == instance }, shared: shared)
                }
            ).map(\.update)
            return created
        }
    }
}

extension QueueRepository {
    /// Removes the waiters of every bank whose active questions fell below what a duel
    /// needs (an operator deactivated them after the players queued), and tells every
    /// instance on channel `queue_evictions` (payload `<slug>:<player>,<player>…`), whose
    /// listeners tell their own players. Returns the evicted players by bank slug.
    @discardableResult
    public func evictWaitersOfShortBanks(questionsNeeded: Int) throws -> [String: [PlayerID]] {
        let rows = try db.query("""
            WITH short AS (
                SELECT b.id, b.slug FROM banks b
                 WHERE EXISTS (SELECT 1 FROM match_queue q WHERE q.bank_id = b.id)
                   -- A retired bank (ops.retire_bank) has no question a duel may draw.
                   -- So has a quiz taken out of matchmaking (issue 13).
                   AND (b.retired_at IS NOT NULL OR NOT (\(unsafeRaw: BankSummary.inMatchmaking("b")))
                        OR (SELECT count(*) FROM (SELECT 1 FROM questions q WHERE q.bank_id = b.id AND q.active
                                              LIMIT \(questionsNeeded)) enough) < \(questionsNeeded))),
            gone AS (
                DELETE FROM match_queue q USING short WHERE q.bank_id = short.id
                RETURNING q.player_id, short.slug)
            SELECT player_id::text AS player, slug FROM gone
            """)
        var evicted: [String: [PlayerID]] = [:]
        for row in rows { evicted[try row.string("slug"), default: []].append(try row.string("player")) }
        for (slug, players) in evicted {
            // 37 bytes per player: 150 per payload stays under Postgres's 8000-byte limit.
            for start in stride(from: 0, to: players.count, by: 150) {
                let chunk = players[start..<min(players.count, start + 150)]
                try db.query("SELECT pg_notify('queue_evictions', \(slug + ":" + chunk.joined(separator: ",")))")
            }
        }
        return evicted
    }
}
