import DuelCore

/// The catalog of published quizzes, players' libraries, votes and reports (issue 13).
extension QuizRepository {
    /// Published quizzes matching `query`, a page of them; the offset of the next page when
    /// there is one.
    public func catalog(_ query: CatalogQuery, viewer: PlayerID) throws -> (quizzes: [Quiz], next: Int?) {
        let order = switch query.sort {
        case .popular: "b.plays DESC, b.likes DESC"
        case .new: "b.published_at DESC"
        // The like share with one like and one dislike added: 3 of 3 does not outrank 40 of 42.
        case .topRated: "(b.likes + 1.0) / (b.likes + b.dislikes + 2) DESC, b.likes DESC"
        }
        let pattern = query.search.map { search in
            "%" + search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
        }
        let rows = try db.query("""
            SELECT \(unsafeRaw: Quiz.columns(viewer: viewer)) FROM banks b JOIN players p ON p.id = b.owner_id
             WHERE b.published_at IS NOT NULL AND b.retired_at IS NULL
               AND (\(pattern)::text IS NULL OR b.title ILIKE \(pattern) OR b.description ILIKE \(pattern))
               AND (\(query.theme)::text IS NULL OR b.theme = \(query.theme))
               AND (\(query.difficulty)::text IS NULL OR b.difficulty = \(query.difficulty))
             ORDER BY \(unsafeRaw: order), b.id DESC
             LIMIT \(query.limit + 1) OFFSET \(query.offset)
            """).map(Quiz.init(row:))
        let more = rows.count > query.limit
        return (Array(rows.prefix(query.limit)), more ? query.offset + query.limit : nil)
    }

    /// A quiz's page: published ones for anyone, a private one for its owner, and a saved one
    /// for whoever saved it (so a library keeps showing what it holds). `unknown_bank` otherwise.
    public func quizInfo(slug: String, viewer: PlayerID) throws -> Quiz {
        guard let quiz = try visibleQuiz(slug, viewer: viewer) else { throw StoreError(.unknownBank, "no such quiz") }
        return quiz
    }

    /// Saves ("downloads") a quiz into the player's library; saving it again changes nothing.
    public func saveQuiz(slug: String, player: PlayerID) throws -> Quiz {
        try db.transaction { db in
            guard let quiz = try visibleQuiz(slug, viewer: player), quiz.publishedAtMs != nil || quiz.owner.id == player
            else { throw StoreError(.unknownBank, "no such quiz") }
            try db.query("""
                WITH saved AS (
                    INSERT INTO quiz_saves (player_id, bank_id) VALUES (\(player)::uuid, \(quiz.bankID))
                    ON CONFLICT DO NOTHING RETURNING bank_id)
                UPDATE banks SET saves = saves + 1 WHERE id IN (SELECT bank_id FROM saved)
                """)
            return try self.quiz(slug: slug, viewer: player)!
        }
    }

    /// Takes a quiz out of the player's library; one that is not in it changes nothing.
    public func unsaveQuiz(slug: String, player: PlayerID) throws {
        try db.query("""
            WITH gone AS (
                DELETE FROM quiz_saves s USING banks b
                 WHERE b.slug = \(slug) AND s.bank_id = b.id AND s.player_id = \(player)::uuid
                RETURNING s.bank_id)
            UPDATE banks SET saves = saves - 1 WHERE id IN (SELECT bank_id FROM gone)
            """)
    }

    /// The player's saved quizzes, last saved first (deleted ones drop out).
    public func library(player: PlayerID) throws -> [Quiz] {
        try db.query("""
            SELECT \(unsafeRaw: Quiz.columns(viewer: player)) FROM quiz_saves s
              JOIN banks b ON b.id = s.bank_id JOIN players p ON p.id = b.owner_id
             WHERE s.player_id = \(player)::uuid AND b.retired_at IS NULL
             ORDER BY s.saved_at DESC, b.id DESC
            """).map(Quiz.init(row:))
    }

    /// One vote per player: 1 like, -1 dislike, 0 takes it back. A quiz is rated when it is
    /// published (not by its owner); a question when the player could have played it (an
    /// operator bank's, or a published quiz's not their own). Returns the new counts.
    public func rate(_ target: RateTarget, value: Int, player: PlayerID) throws -> JSONValue {
        try db.transaction { db in
            // Serializes one player's votes, so the old vote read below stays theirs.
            try db.query("SELECT 1 FROM players WHERE id = \(player)::uuid FOR NO KEY UPDATE")
            let table: String, column: String, subject: Int64
            switch target {
            case .quiz(let slug):
                guard let quiz = try visibleQuiz(slug, viewer: player), quiz.publishedAtMs != nil else {
                    throw StoreError(.unknownBank, "no such quiz")
                }
                guard quiz.owner.id != player else { throw StoreError(.badRequest, "quiz: you cannot rate your own quiz") }
                (table, column, subject) = ("quiz_votes", "bank_id", Int64(quiz.bankID))
            case .question(let id):
                guard let row = try db.query("""
                    SELECT b.owner_id::text AS owner FROM questions q JOIN banks b ON b.id = q.bank_id
                     WHERE q.id = \(id) AND b.retired_at IS NULL AND (b.owner_id IS NULL OR b.published_at IS NOT NULL)
                    """).first else { throw StoreError(.unknownQuestion) }
                guard row.optionalString("owner") != player else {
                    throw StoreError(.badRequest, "question_id: you cannot rate your own question")
                }
                (table, column, subject) = ("question_votes", "question_id", id)
            }
            let old = try db.query("""
                SELECT value FROM \(unsafeRaw: table) WHERE player_id = \(player)::uuid AND \(unsafeRaw: column) = \(subject)
                """).first.map { try $0.int("value") } ?? 0
            if value == 0 {
                try db.query("DELETE FROM \(unsafeRaw: table) WHERE player_id = \(player)::uuid AND \(unsafeRaw: column) = \(subject)")
            } else {
                // voted_at from the column's default, now(), through excluded: Citus refuses a
                // function call in an upsert's SET.
                try db.query("""
                    INSERT INTO \(unsafeRaw: table) (player_id, \(unsafeRaw: column), value) VALUES (\(player)::uuid, \(subject), \(value))
                    ON CONFLICT (player_id, \(unsafeRaw: column)) DO UPDATE SET value = excluded.value, voted_at = excluded.voted_at
                    """)
            }
            let likes = (value == 1 ? 1 : 0) - (old == 1 ? 1 : 0)
            let dislikes = (value == -1 ? 1 : 0) - (old == -1 ? 1 : 0)
            let counts = switch target {
            case .quiz:
                try db.query("""
                    UPDATE banks SET likes = likes + \(likes), dislikes = dislikes + \(dislikes) WHERE id = \(subject)
                    RETURNING likes, dislikes
                    """)[0]
            case .question:
                // The draw weight follows the votes (migration 014).
                try db.query("""
                    UPDATE questions SET likes = likes + \(likes), dislikes = dislikes + \(dislikes),
                                         weight = ops.question_weight(likes + \(likes), dislikes + \(dislikes))
                     WHERE id = \(subject) RETURNING likes, dislikes
                    """)[0]
            }
            return .object(["likes": .number(try counts.int("likes")), "dislikes": .number(try counts.int("dislikes")),
                            "your_vote": .number(value)])
        }
    }

    /// A live quiz `viewer` may see: published, their own, or saved by them.
    func visibleQuiz(_ slug: String, viewer: PlayerID) throws -> Quiz? {
        try db.query("""
            SELECT \(unsafeRaw: Quiz.columns(viewer: viewer)) FROM banks b JOIN players p ON p.id = b.owner_id
             WHERE b.slug = \(slug) AND b.retired_at IS NULL
               AND (\(unsafeRaw: BankSummary.visible("b", to: viewer))
                    OR EXISTS (SELECT 1 FROM quiz_saves s WHERE s.bank_id = b.id AND s.player_id = \(viewer)::uuid))
            """).first.map(Quiz.init(row:))
    }
}
