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
        guard !completions.isEmpty else { return }
        let rows = completions.flatMap { completion in
            completion.result.outcomes.map { (duel: completion.duelID, bank: completion.bankID, outcome: $0) }
        }
        let column = { (value: ((duel: String, bank: Int, outcome: PlayerOutcome)) -> String) in
            PGArray(rows.map { Optional(value($0)) })
        }
        try db.query("""
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
            """)
    }

    /// A finished practice game's correct answers: each question counts once per game. The
    /// second game that counts since the player last missed the question (in a finished game
    /// against others) makes it learned; a miss after the count started starts it again.
    func countPractice(duels: [String?]) throws {
        try db.query("""
            WITH right_answers AS (
                SELECT a.player_id, dq.question_id, a.duel_id
                  FROM duel_answers a
                  JOIN duel_questions dq ON dq.duel_id = a.duel_id AND dq.question_index = a.question_index
                 WHERE a.duel_id = ANY(\(PGArray(duels))::uuid[]) AND a.correct),
            counted AS (
                SELECT r.*, p.correct_games, p.learned_at, p.last_duel,
                       p.player_id IS NOT NULL AND EXISTS (
                           SELECT 1 FROM missed_questions m
                            WHERE m.player_id = r.player_id AND m.question_id = r.question_id
                              AND m.finished_at > p.since) AS missed_since
                  FROM right_answers r
                  LEFT JOIN practice_progress p ON p.player_id = r.player_id AND p.question_id = r.question_id
                 WHERE p.last_duel IS DISTINCT FROM r.duel_id)
            INSERT INTO practice_progress AS p (player_id, question_id, correct_games, since, last_duel, learned_at)
            SELECT player_id, question_id,
                   CASE WHEN correct_games IS NULL OR missed_since THEN 1 ELSE correct_games + 1 END,
                   now(), duel_id,
                   CASE WHEN correct_games IS NOT NULL AND NOT missed_since THEN coalesce(learned_at, now()) END
              FROM counted
            ON CONFLICT (player_id, question_id) DO UPDATE
               SET correct_games = excluded.correct_games, last_duel = excluded.last_duel,
                   learned_at = excluded.learned_at,
                   -- excluded.since is now(), set above: Citus refuses a function call here.
                   since = CASE WHEN excluded.correct_games = 1 THEN excluded.since ELSE p.since END
            """)
    }
}
