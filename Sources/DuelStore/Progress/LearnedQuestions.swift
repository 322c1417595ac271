import DuelCore

/// The questions practice taught a player: each practice row's question and `learned_at`
/// (a player has one row per question). Read first, then passed to the queries of the player's
/// misses as two arrays, so those queries join nothing: on Citus the practice rows live on the
/// player's shard and the misses' games on theirs, which one statement cannot join (issue 24).
/// Which miss is taught stays `is_learned` (SQL), applied to the array element of its question:
/// `is_learned(at[array_position(ids, question)], finished_at)`.
struct LearnedQuestions {
    let ids: PGArray
    let times: PGArray

    init(player: PlayerID, on db: PGConnection) throws {
        let rows = try db.query("""
            SELECT question_id::text AS id, learned_at::text AS at FROM practice_progress
             WHERE player_id = \(player)::uuid AND learned_at IS NOT NULL
            """)
        ids = PGArray(try rows.map { Optional(try $0.string("id")) })
        times = PGArray(try rows.map { Optional(try $0.string("at")) })
    }
}
