import DuelCore

/// Practice: one-player unrated games, of a bank or of the player's mistakes notebook.
extension DuelRepository {
    /// Starts a practice game for `player` in one transaction: refused when the player
    /// waits in a queue (`already_queued`), plays a live game (`in_duel`) or is a member of
    /// a room (`in_room`). Questions are
    /// drawn at random from the bank's active ones, or (with `mistakes`) from the player's
    /// notebook, not yet learned, of `bank` when given, else of the bank with the most.
    public func startPractice(
        player: PlayerID, bank slug: String?, mistakes: Bool, configuration: DuelConfiguration, nowMs: Int64,
        announce: Bool
    ) throws -> DuelUpdate {
        try db.transaction { db in
            try RoomRepository(db).checkFree(player)
            var bankID: Int?
            if let slug {
                guard let row = try db.query("SELECT id FROM banks b WHERE slug = \(slug) AND \(unsafeRaw: BankSummary.playable("b", by: player))").first else {
                    throw StoreError(.unknownBank)
                }
                bankID = try row.int("id")
            }
            // A bank's practice: createGames draws, as for any game. Mistakes: drawn here.
            var questions: [DuelQuestion]?
            if mistakes {
                // The notebook (the view mistakes_notebook, for operators), with the taught
                // questions passed in: see LearnedQuestions.
                // The questions in a second read: on Citus a reference table joined to the misses'
                // UNION is refused.
                let learned = try LearnedQuestions(player: player, on: db)
                let missedIDs = try db.query("""
                    SELECT DISTINCT n.question_id::text AS id FROM missed_questions n
                     WHERE n.player_id = \(player)::uuid
                       AND NOT coalesce(is_learned((\(learned.times)::timestamptz[])[array_position(\(learned.ids)::bigint[], n.question_id)],
                                                   n.finished_at), false)
                    """).map { Optional(try $0.string("id")) }
                let rows = try db.query("""
                    WITH missed AS (
                        SELECT q.bank_id, \(unsafeRaw: DuelQuestion.columns("q"))
                          FROM questions q WHERE q.id = ANY(\(PGArray(missedIDs))::bigint[])),
                    chosen AS (
                        SELECT coalesce(\(bankID)::int,
                                        (SELECT bank_id FROM missed GROUP BY bank_id ORDER BY count(*) DESC, bank_id LIMIT 1))
                               AS bank_id)
                    SELECT m.* FROM missed m, chosen WHERE m.bank_id = chosen.bank_id
                     ORDER BY random() LIMIT \(configuration.questionCount)
                    """)
                guard let first = rows.first else { throw StoreError(.bankEmpty, "no mistakes left to practise") }
                bankID = try first.int("bank_id")
                questions = try rows.map(DuelQuestion.init(row:))
            }
            return try createGames(
                bankID: bankID!, games: [[player]], mode: .practice, configuration: configuration, nowMs: nowMs,
                questionSets: questions.map { [$0] }, announce: { _ in announce })[0].update
        }
    }
}
