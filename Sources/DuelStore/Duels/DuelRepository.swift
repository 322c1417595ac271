import DuelCore
import Foundation

/// The duels' queries (issue 22): creating games, reading their events and players, the lanes'
/// group commit of inputs (``applyInputs(_:lane:)``), what finished games write beside their
/// rows, practice, and operators' end requests (`duel_commands`) with the hourly upkeep.
///
/// Like every repository it runs on the connection it is given (the caller's transaction, if
/// any) and keeps no state of its own, so one is made per use.
public struct DuelRepository {
    /// The connection every query runs on.
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    /// Creates games of one bank, inside the caller's transaction: multi-row statements for
    /// the duel rows, their questions, the live-duel markers and the `init` events, and
    /// NOTIFYs for all. Each game's questions are drawn at random unless `questionSets`
    /// gives them. Returns each game's update and its engine state (which the caller may
    /// hand to the lane that will run it). Seats 1 and 2 go in `player_a` and `player_b`
    /// (practice has no second), seats 3 and 4 of a room's game in `more_players`.
    /// `roomID` and `rematchOf` link the games to their room or to the duel they rematch.
    /// `opponent`: a recorded game's recording, seated after the player (no account, no row).
    public func createGames(
        bankID: Int, games: [[PlayerID]], mode: DuelMode, configuration: DuelConfiguration, nowMs: Int64,
        questionSets: [[DuelQuestion]]? = nil, roomID: Int64? = nil, rematchOf: String? = nil,
        opponent: DuelPlayer? = nil, announce: ([PlayerID]) -> Bool = { _ in true }
    ) throws -> [(update: DuelUpdate, duel: Duel)] {
        guard !games.isEmpty else { return [] }
        guard let bank = try db.query("SELECT slug FROM banks WHERE id = \(bankID)").first else {
            throw StoreError(.unknownBank)
        }
        let slug = try bank.string("slug")
        let ids = games.flatMap { $0 }
        // Every player's pre-duel rating in this bank. Driven by the id list (`unnest`), so the
        // plan probes the primary key: `id = ANY(…)` was planned as a scan of every player
        // (1.8 ms per matcher batch among 20,000 accounts, pg_stat_statements).
        var players: [PlayerID: DuelPlayer] = [:]
        for row in try db.query("""
            SELECT p.id::text AS id, p.username, coalesce(r.rating, 1500) AS rating,
                   coalesce(r.deviation, 350) AS deviation, coalesce(r.volatility, 0.06) AS volatility
              FROM unnest(\(PGArray(ids))::uuid[]) AS wanted(id)
              JOIN players p ON p.id = wanted.id
              LEFT JOIN ratings r ON r.player_id = p.id AND r.bank_id = \(bankID)
            """) {
            let id = try row.string("id")
            players[id] = DuelPlayer(
                id: id, username: try row.string("username"),
                rating: GlickoRating(
                    rating: try row.double("rating"), deviation: try row.double("deviation"),
                    volatility: try row.double("volatility")))
        }
        var created: [(update: DuelUpdate, duel: Duel)] = []
        var writes = DuelWrites()
        var rows: (ids: [String?], a: [String?], b: [String?], more: [String?], states: [String?], bases: [String?],
                   seqs: [Int?], deadlines: [Int64?], opened: [Int?]) = ([], [], [], [], [], [], [], [], [])
        var questionRows: (duels: [String?], indexes: [Int?], questions: [Int64?]) = ([], [], [])
        let encoder = JSONEncoder()
        let draws = try questionSets
            ?? QuizRepository(db).drawQuestionSets(bankID: bankID, count: configuration.questionCount, sets: games.count)
        for (game, questions) in zip(games, draws) {
            // A recorded game's opponent is the recording, not an account: seated last, and
            // stored in the game's state only.
            let seated = game.compactMap { players[$0] } + (opponent.map { [$0] } ?? [])
            guard seated.count == game.count + (opponent == nil ? 0 : 1) else {
                throw StoreError(.badRequest, "unknown player")
            }
            let id = UUID().uuidString.lowercased()
            guard let (duel, step) = Duel.start(
                id: id, bank: slug, players: seated, questions: questions, configuration: configuration, mode: mode,
                nowMs: nowMs)
            else { throw StoreError(.bankEmpty) }
            // The base state the input log starts from: the state right after start.
            rows.ids.append(id); rows.a.append(game[0]); rows.b.append(game.count > 1 ? game[1] : nil)
            // An array literal in a text[] element: seats 3 and 4 (uuids need no quoting).
            rows.more.append(game.count > 2 ? "{" + game[2...].joined(separator: ",") + "}" : nil)
            rows.states.append(duel.phase.rawValue)
            rows.bases.append(String(decoding: try encoder.encode(duel), as: UTF8.self))
            rows.seqs.append(duel.seq)
            rows.deadlines.append(duel.nextDeadlineMs)
            rows.opened.append(duel.rounds.count)
            for (index, question) in duel.questions.enumerated() {
                questionRows.duels.append(id)
                questionRows.indexes.append(index)
                questionRows.questions.append(question.id)
            }
            let events = writes.add(step.events, duelID: id, players: game, announce: announce(game))
            created.append((DuelUpdate(
                duelID: id, seq: duel.seq, players: game, outcome: step.outcome, events: events,
                nextDeadlineMs: duel.nextDeadlineMs, finished: false, created: duel), duel))
        }
        try db.query("""
            WITH d AS (
                SELECT * FROM unnest(\(.uuids(rows.ids))::uuid[], \(.uuids(rows.a))::uuid[], \(.uuids(rows.b))::uuid[],
                                     \(.texts(rows.more))::text[], \(.texts(rows.states))::text[], \(.texts(rows.bases))::text[],
                                     \(.ints(rows.seqs))::int[], \(.bigints(rows.deadlines))::bigint[], \(.ints(rows.opened))::int[])
                       AS d(id, a, b, more, state, base, seq, deadline, opened)),
            new_duels AS (
                INSERT INTO duels (id, bank_id, player_a, player_b, more_players, state, last_seq,
                                   next_deadline_ms, questions_opened, mode, room_id, rematch_of)
                SELECT d.id, \(bankID), d.a, d.b, d.more::uuid[], d.state, d.seq, d.deadline, d.opened,
                       \(mode.rawValue), \(roomID)::bigint, \(rematchOf)::uuid
                  FROM d
                RETURNING id, player_a, player_b, more_players),
            -- The start states in a table of their own: each round rewrites its duels' rows, and
            -- the WAL logged the start state with each (migration 026).
            starts AS (
                INSERT INTO duel_starts (duel_id, base_state) SELECT d.id, d.base::json FROM d
                RETURNING 1),
            -- A player's quiz counts its games for the catalog (issue 13); an operator's bank
            -- matches no row here, so the matcher takes no lock for it.
            played AS (
                UPDATE banks SET plays = plays + (SELECT count(*) FROM new_duels)
                 WHERE id = \(bankID) AND owner_id IS NOT NULL
                RETURNING 1),
            live AS (
                INSERT INTO live_duel_players (player_id, duel_id)
                SELECT player_a, id FROM new_duels
                UNION ALL SELECT player_b, id FROM new_duels WHERE player_b IS NOT NULL
                UNION ALL SELECT unnest(more_players), id FROM new_duels WHERE more_players IS NOT NULL
                RETURNING 1)
            SELECT count(*) AS n FROM live
            """)
        try db.query("""
            INSERT INTO duel_questions (duel_id, question_index, question_id)
            SELECT * FROM unnest(\(.uuids(questionRows.duels))::uuid[], \(.ints(questionRows.indexes))::int[],
                                 \(.bigints(questionRows.questions))::bigint[])
            """)
        try writes.write(on: db)
        return created
    }

    /// The events of a duel with `seq > afterSeq` (and at most `upToSeq`), in order
    /// (``derivedEvents(_:replays:)``).
    public func events(
        duel id: String, afterSeq: Int, upToSeq: Int = Int(Int32.max), replays: DuelReplays? = nil
    ) throws -> [StoredEvent] {
        try derivedEvents([(id, afterSeq, upToSeq)], replays: replays)[id.lowercased()]?.events ?? []
    }

    /// For many duels at once: each duel's events after the given seq, in order, and
    /// its players (unknown or malformed ids are left out; ``derivedEvents(_:replays:)``).
    public func events(
        after duels: [(duelID: String, afterSeq: Int)], replays: DuelReplays? = nil
    ) throws -> [String: (players: [PlayerID], events: [StoredEvent])] {
        try derivedEvents(duels.map { ($0.duelID, $0.afterSeq, Int(Int32.max)) }, replays: replays)
    }

    /// The players of a duel (one to four), or nil for an unknown duel.
    public func duelPlayers(id: String) throws -> [PlayerID]? {
        guard UUIDText.isValid(id) else { return nil }
        return try db.query(
            "SELECT player_a::text AS a, player_b::text AS b, more_players::text AS more FROM duels WHERE id = \(id)::uuid")
            .first.map { try $0.seats() }
    }

    /// The live duel of a player as its two newest events, oldest first; empty when the player is
    /// in none. Two, because the newest may lie ahead of the clock (a question opened in its
    /// reveal's round, issue 25): the one before it is then the latest a player may see.
    /// `replays`: as for ``derivedEvents(_:replays:)``.
    public func liveDuel(player: PlayerID, replays: DuelReplays? = nil) throws -> [StoredEvent] {
        guard let (id, last) = try liveDuelID(player: player) else { return [] }
        return try events(duel: id, afterSeq: last - 2, replays: replays)
    }

    /// The live duel of a player and its last seq, or nil when the player is in none.
    public func liveDuelID(player: PlayerID) throws -> (duelID: String, lastSeq: Int)? {
        // Two probes, not a join: on Citus the marker lives on the player's shard and the duel on
        // its own, and Citus would repartition both tables to join them.
        guard let marker = try db.query("""
            SELECT duel_id::text AS id FROM live_duel_players WHERE player_id = \(player)::uuid
            """).first,
              let row = try db.query("""
            SELECT id::text AS id, last_seq FROM duels WHERE id = \(try marker.string("id"))::uuid
            """).first else { return nil }
        return (try row.string("id"), try row.int("last_seq"))
    }

    /// Live duels whose next deadline is at or before `nowMs`, with that deadline: the sweep's
    /// work list.
    public func dueDuels(nowMs: Int64, limit: Int = 200) throws -> [(id: String, deadlineMs: Int64)] {
        // Through the live markers (a small table) and the primary key: `duels`
        // keeps no index on the deadline, which changes with nearly every step.
        try db.query("""
            SELECT d.id::text AS id, d.next_deadline_ms FROM duels d
             WHERE d.id IN (SELECT duel_id FROM live_duel_players)
               AND d.state <> 'finished' AND d.next_deadline_ms <= \(nowMs)
             ORDER BY d.next_deadline_ms LIMIT \(limit)
            """).map { (try $0.string("id"), try $0.int64("next_deadline_ms")) }
    }

    /// Live duels with their next deadline (to rebuild timers after a restart).
    public func liveDuelDeadlines() throws -> [(id: String, deadlineMs: Int64)] {
        try db.query("""
            SELECT d.id::text AS id, d.next_deadline_ms FROM duels d
             WHERE d.id IN (SELECT duel_id FROM live_duel_players) AND d.state <> 'finished'
            """).map {
            (try $0.string("id"), try $0.int64("next_deadline_ms"))
        }
    }

    /// Live duels (for metrics).
    public func liveDuelCount() throws -> Int {
        // The live markers (a small table, where counting `duels` would scan every duel ever
        // played), one per player: a duel has two and a practice game one.
        try db.query("SELECT count(DISTINCT duel_id) AS n FROM live_duel_players")[0].int("n")
    }
}
