import DuelCore

/// What a batch that finished games writes beside its rows: ratings, once, and practice progress.
extension DuelRepository {
    /// Rule 9: both ratings, once. rating_history's primary key (duel, player)
    /// makes a second attempt fail the transaction instead of rating twice.
    /// One statement for every duel of the batch (a statement per finished duel was 6 % of
    /// Postgres's time at full load). A player in two of its duels (which live-duel bookkeeping
    /// rules out) would trip ON CONFLICT's one-update-per-row rule; the batch would then fail
    /// and ``DuelRepository/applyInputs(_:lane:)`` retry each duel alone, as for any failing write.
    func storeRatings(_ completions: [(duelID: String, bankID: Int, result: DuelResult)]) throws {
        if let statement = Self.ratingsStatement(completions) { try db.query(statement) }
    }

    /// ``storeRatings(_:)``'s one statement, nil when no duel finished rated.
    static func ratingsStatement(_ completions: [(duelID: String, bankID: Int, result: DuelResult)]) -> SQLQuery? {
        guard !completions.isEmpty else { return nil }
        let rows = completions.flatMap { completion in
            completion.result.outcomes.map { (duel: completion.duelID, bank: completion.bankID, outcome: $0) }
        }
        let column = { (value: ((duel: String, bank: Int, outcome: PlayerOutcome)) -> String) in
            PGArray(rows.map { Optional(value($0)) })
        }
        return """
            WITH history AS (
                INSERT INTO rating_history (duel_id, player_id, bank_id, outcome, score, rating_before, rating_after,
                                            deviation_before, deviation_after, volatility_before, volatility_after)
                SELECT o.duel, o.player, o.bank, o.outcome, o.score, o.rb, o.ra, o.db, o.da, o.vb, o.va
                  FROM unnest(\(column { $0.duel })::uuid[], \(column { String($0.bank) })::int[],
                              \(column { $0.outcome.player })::uuid[], \(column { $0.outcome.outcome.rawValue })::text[],
                              \(column { String($0.outcome.score) })::int[],
                              \(column { String($0.outcome.rating.before.rating) })::float8[],
                              \(column { String($0.outcome.rating.after.rating) })::float8[],
                              \(column { String($0.outcome.rating.before.deviation) })::float8[],
                              \(column { String($0.outcome.rating.after.deviation) })::float8[],
                              \(column { String($0.outcome.rating.before.volatility) })::float8[],
                              \(column { String($0.outcome.rating.after.volatility) })::float8[])
                       AS o(duel, bank, player, outcome, score, rb, ra, db, da, vb, va)
                RETURNING player_id, bank_id, outcome, score, rating_after, deviation_after, volatility_after)
            INSERT INTO ratings AS r (player_id, bank_id, rating, deviation, volatility, games, wins, losses, draws, total_score)
            SELECT h.player_id, h.bank_id, h.rating_after, h.deviation_after, h.volatility_after, 1,
                   (h.outcome = 'win')::int, (h.outcome = 'loss')::int, (h.outcome = 'draw')::int, h.score
              FROM history h
            ON CONFLICT (player_id, bank_id) DO UPDATE
               SET rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility,
                   games = r.games + 1, wins = r.wins + excluded.wins, losses = r.losses + excluded.losses,
                   draws = r.draws + excluded.draws, total_score = r.total_score + excluded.total_score,
                   updated_at = excluded.updated_at  -- the column's default, now(): Citus refuses now() here
            """
    }

    /// A finished practice game's correct answers: each question counts once per game. The
    /// second game that counts since the player last missed the question (in a finished game
    /// against others) makes it learned; a miss after the count started starts it again.
    ///
    /// Three reads, then one write of the arrays they gave: the right answers (the games'
    /// shards), the players' practice rows and their last misses (`missed_questions`). On Citus
    /// these live in different placements, which one statement cannot join (issue 24).
    func countPractice(duels: [String?]) throws {
        let rights = try db.query("""
            SELECT a.player_id::text AS player, dq.question_id AS question, a.duel_id::text AS duel
              FROM duel_answers a
              JOIN duel_questions dq ON dq.duel_id = a.duel_id AND dq.question_index = a.question_index
             WHERE a.duel_id = ANY(\(PGArray(duels))::uuid[]) AND a.correct
            """).map { (player: try $0.string("player"), question: try $0.string("question"), duel: try $0.string("duel")) }
        guard !rights.isEmpty else { return }
        let players = PGArray(rights.map { Optional($0.player) })
        let questions = PGArray(rights.map { Optional($0.question) })
        // The player's row of the question, and whether a miss came after its count started.
        var rows: [String: (games: String, learnedAt: String?, lastDuel: String?, since: String)] = [:]
        for row in try db.query("""
            SELECT player_id::text AS player, question_id AS question, correct_games, learned_at::text AS learned_at,
                   last_duel::text AS last_duel, since::text AS since
              FROM practice_progress WHERE player_id = ANY(\(players)::uuid[]) AND question_id = ANY(\(questions)::bigint[])
            """) {
            rows[try row.string("player") + "/" + row.string("question")] = (
                try row.string("correct_games"), row.optionalString("learned_at"), row.optionalString("last_duel"),
                try row.string("since"))
        }
        var lastMiss: [String: String] = [:]
        if !rows.isEmpty {
            for row in try db.query("""
                SELECT player_id::text AS player, question_id AS question, max(finished_at)::text AS at FROM missed_questions
                 WHERE player_id = ANY(\(players)::uuid[]) AND question_id = ANY(\(questions)::bigint[])
                 GROUP BY 1, 2
                """) {
                lastMiss[try row.string("player") + "/" + row.string("question")] = try row.string("at")
            }
        }
        // Each game counts once (a row already counted for this game is left alone).
        let counted = rights.filter { rows[$0.player + "/" + $0.question]?.lastDuel != $0.duel }
        guard !counted.isEmpty else { return }
        func column(_ value: ((player: String, question: String, duel: String)) -> String?) -> PGArray {
            PGArray(counted.map(value))
        }
        try db.query("""
            WITH counted AS (
                SELECT c.player_id, c.question_id, c.duel_id, c.correct_games, c.learned_at,
                       c.correct_games IS NOT NULL AND coalesce(c.last_miss > c.since, false) AS missed_since,
                       -- A second right game since the count started: learned (again, or first by this game).
                       c.correct_games IS NOT NULL AND NOT coalesce(c.last_miss > c.since, false) AS learns
                  FROM unnest(\(column { $0.player })::uuid[], \(column { $0.question })::bigint[], \(column { $0.duel })::uuid[],
                              \(column { rows[$0.player + "/" + $0.question]?.games })::int[],
                              \(column { rows[$0.player + "/" + $0.question]?.learnedAt })::timestamptz[],
                              \(column { rows[$0.player + "/" + $0.question]?.since })::timestamptz[],
                              \(column { lastMiss[$0.player + "/" + $0.question] })::timestamptz[])
                       AS c(player_id, question_id, duel_id, correct_games, learned_at, since, last_miss))
            INSERT INTO practice_progress AS p (player_id, question_id, correct_games, since, last_duel, learned_at,
                                                learned_duel)
            SELECT player_id, question_id,
                   CASE WHEN correct_games IS NULL OR missed_since THEN 1 ELSE correct_games + 1 END,
                   now(), duel_id,
                   CASE WHEN learns THEN coalesce(learned_at, now()) END,
                   -- The game that makes it learned: record_progress pays that game, in whatever
                   -- transaction it runs (migration 030).
                   CASE WHEN learns AND learned_at IS NULL THEN duel_id END
              FROM counted
            ON CONFLICT (player_id, question_id) DO UPDATE
               SET correct_games = excluded.correct_games, last_duel = excluded.last_duel,
                   learned_at = excluded.learned_at,
                   learned_duel = CASE WHEN excluded.learned_at IS NOT NULL THEN coalesce(excluded.learned_duel, p.learned_duel) END,
                   -- excluded.since is now(), set above: Citus refuses a function call here.
                   since = CASE WHEN excluded.correct_games = 1 THEN excluded.since ELSE p.since END
            """)
    }
}
