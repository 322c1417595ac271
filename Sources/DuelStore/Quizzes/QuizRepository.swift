import DuelCore

/// Quizzes and banks (issue 22): players' authoring, the catalog and libraries, votes, and the
/// banks' listings and question draws. Runs on the connection it is given and keeps no state.
///
/// Authoring (issue 13): a player's quizzes and their questions. Every write checks the
/// owner (`not_owner`), the caps (`limit_reached`) and the per-player rate of authoring writes
/// (`rate_limited`) in its own transaction, so a refusal changes nothing.
public struct QuizRepository {
    /// The connection every query runs on.
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    public func createQuiz(owner: PlayerID, _ fields: QuizFields, perMinute: Int) throws -> Quiz {
        try db.transaction { db in
            try authoringTurn(owner, perMinute: perMinute)
            let count = try db.query("""
                SELECT count(*) AS n FROM banks WHERE owner_id = \(owner)::uuid AND retired_at IS NULL
                """)[0].int("n")
            guard count < QuizLimits.quizzesPerPlayer else {
                throw StoreError(.limitReached, "at most \(QuizLimits.quizzesPerPlayer) quizzes per player")
            }
            let slug = try db.query("""
                WITH n AS (SELECT nextval('banks_id_seq') AS id)
                INSERT INTO banks (id, slug, title, description, theme, difficulty, owner_id, matchmaking)
                SELECT n.id, 'quiz-' || n.id, \(fields.title ?? ""), \(fields.description ?? ""),
                       \(fields.theme ?? "general"), \(fields.difficulty ?? "mixed"), \(owner)::uuid, false FROM n
                RETURNING slug
                """)[0].string("slug")
            return try quiz(slug: slug, viewer: owner)!
        }
    }

    public func updateQuiz(owner: PlayerID, slug: String, _ fields: QuizFields, perMinute: Int) throws -> Quiz {
        try db.transaction { db in
            try authoringTurn(owner, perMinute: perMinute)
            let id = try ownedQuiz(slug, owner: owner)
            try db.query("""
                UPDATE banks SET title = coalesce(\(fields.title), title),
                                 description = coalesce(\(fields.description), description),
                                 theme = coalesce(\(fields.theme), theme),
                                 difficulty = coalesce(\(fields.difficulty), difficulty), updated_at = now()
                 WHERE id = \(id)
                """)
            return try quiz(slug: slug, viewer: owner)!
        }
    }

    /// Deletes a quiz for its owner: it leaves the catalog, libraries and the owner's list;
    /// its games stay in everyone's history (the bank row stays, retired).
    public func deleteQuiz(owner: PlayerID, slug: String, perMinute: Int) throws {
        try db.transaction { db in
            try authoringTurn(owner, perMinute: perMinute)
            let id = try ownedQuiz(slug, owner: owner)
            try db.query("""
                UPDATE banks SET retired_at = now(), published_at = NULL, matchmaking = false, updated_at = now()
                 WHERE id = \(id)
                """)
        }
    }

    /// Publishes (a quiz needs a question first: `bank_empty`) or unpublishes a quiz.
    public func publishQuiz(owner: PlayerID, slug: String, publish: Bool, perMinute: Int, outbox: Outbox) throws -> Quiz {
        try outbox.transaction(on: db) { db in
            try authoringTurn(owner, perMinute: perMinute)
            let id = try ownedQuiz(slug, owner: owner)
            if publish {
                let questions = try db.query("""
                    SELECT count(*) AS n FROM questions WHERE bank_id = \(id) AND active
                    """)[0].int("n")
                guard questions > 0 else { throw StoreError(.bankEmpty, "add a question before publishing") }
                // now() read first and bound: Citus refuses a function call inside coalesce.
                let now = try db.query("SELECT now()::text AS now")[0].string("now")
                try db.query("""
                    UPDATE banks SET published_at = coalesce(published_at, \(now)::timestamptz), unpublished_reason = NULL,
                                     updated_at = \(now)::timestamptz
                     WHERE id = \(id)
                    """)
                try ProgressRepository(db).grantAchievement(owner, "quiz_author", into: outbox)
            } else {
                try db.query("""
                    UPDATE banks SET published_at = NULL, matchmaking = false, updated_at = now() WHERE id = \(id)
                    """)
            }
            return try quiz(slug: slug, viewer: owner)!
        }
    }

    /// The owner's quizzes, newest first.
    public func myQuizzes(owner: PlayerID) throws -> [Quiz] {
        try db.query("""
            SELECT \(unsafeRaw: Quiz.columns(viewer: owner)) FROM banks b JOIN players p ON p.id = b.owner_id
             WHERE b.owner_id = \(owner)::uuid AND b.retired_at IS NULL ORDER BY b.created_at DESC, b.id DESC
            """).map(Quiz.init(row:))
    }

    /// The owner's full view of a quiz: every active question with its key.
    public func quizQuestions(owner: PlayerID, slug: String) throws -> (Quiz, [JSONValue]) {
        let id = try ownedQuiz(slug, owner: owner, lock: false)
        let questions = try db.query("""
            SELECT \(unsafeRaw: DuelQuestion.columns("q")), q.likes, q.dislikes FROM questions q
             WHERE q.bank_id = \(id) AND q.active ORDER BY q.id
            """).map { row in
            try DuelQuestion(row: row).ownerJSON(likes: try row.int("likes"), dislikes: try row.int("dislikes"))
        }
        return (try quiz(slug: slug, viewer: owner)!, questions)
    }

    public func addQuestion(owner: PlayerID, slug: String, _ draft: QuestionDraft, perMinute: Int) throws -> JSONValue {
        try db.transaction { db in
            try authoringTurn(owner, perMinute: perMinute)
            let id = try ownedQuiz(slug, owner: owner)
            let count = try db.query("SELECT count(*) AS n FROM questions WHERE bank_id = \(id) AND active")[0].int("n")
            guard count < QuizLimits.questionsPerQuiz else {
                throw StoreError(.limitReached, "at most \(QuizLimits.questionsPerQuiz) questions per quiz")
            }
            return try insertQuestion(bank: id, draft)
        }
    }

    /// Replaces a question with a new version (as `ops.edit_question` does): past games and
    /// mistakes notebooks keep the version that was asked.
    public func updateQuestion(owner: PlayerID, questionID: Int64, _ draft: QuestionDraft, perMinute: Int) throws -> JSONValue {
        try db.transaction { db in
            try authoringTurn(owner, perMinute: perMinute)
            let bank = try ownedQuestion(questionID, owner: owner)
            let new = try insertQuestion(bank: bank, draft)
            try db.query("""
                UPDATE questions SET active = false, replaced_by = \(new["question_id"]?.integer ?? 0) WHERE id = \(questionID)
                """)
            return new
        }
    }

    /// Takes a question out of its quiz (out of future draws; past games keep it).
    public func deleteQuestion(owner: PlayerID, questionID: Int64, perMinute: Int) throws {
        try db.transaction { db in
            try authoringTurn(owner, perMinute: perMinute)
            _ = try ownedQuestion(questionID, owner: owner)
            try db.query("UPDATE questions SET active = false WHERE id = \(questionID)")
        }
    }

    // MARK: - Pieces

    /// One authoring write of `player`: at most `perMinute` a minute (`rate_limited`). The
    /// player's row lock serializes their writes, so the count is exact across instances.
    func authoringTurn(_ player: PlayerID, perMinute: Int) throws {
        try db.query("SELECT 1 FROM players WHERE id = \(player)::uuid FOR NO KEY UPDATE")
        // The window's start is read first and bound: Citus refuses a volatile function
        // (clock_timestamp) in the WHERE of a statement that modifies a distributed table.
        let since = try db.query("SELECT (clock_timestamp() - interval '1 minute')::text AS since")[0].string("since")
        try db.query("DELETE FROM authoring_log WHERE player_id = \(player)::uuid AND at < \(since)::timestamptz")
        let recent = try db.query("""
            SELECT count(*) AS n FROM authoring_log WHERE player_id = \(player)::uuid AND at >= \(since)::timestamptz
            """)[0].int("n")
        guard recent < perMinute else {
            throw StoreError(.rateLimited, "at most \(perMinute) quiz edits a minute")
        }
        try db.query("INSERT INTO authoring_log (player_id) VALUES (\(player)::uuid)")
    }

    /// The bank id of the owner's live quiz `slug`, locked unless `lock` is false:
    /// `unknown_bank` when there is none or the caller may not see it (another player's private
    /// quiz answers as a missing one), `not_owner` when it is someone else's visible quiz (or an
    /// operator's bank).
    func ownedQuiz(_ slug: String, owner: PlayerID, lock: Bool = true) throws -> Int {
        guard let row = try db.query("""
            SELECT id, owner_id::text AS owner FROM banks b
             WHERE slug = \(slug) AND retired_at IS NULL AND \(unsafeRaw: BankSummary.visible("b", to: owner))
            \(unsafeRaw: lock ? "FOR UPDATE" : "")
            """).first else { throw StoreError(.unknownBank, "no such quiz") }
        guard row.optionalString("owner") == owner else { throw StoreError(.notOwner) }
        return try row.int("id")
    }

    /// The quiz (bank id) of the owner's active question `id`, locked: `unknown_question` when
    /// there is none or it is in a quiz the caller may not see, `not_owner` when it is in
    /// someone else's visible quiz.
    func ownedQuestion(_ id: Int64, owner: PlayerID) throws -> Int {
        guard let row = try db.query("""
            SELECT q.bank_id, b.owner_id::text AS owner FROM questions q JOIN banks b ON b.id = q.bank_id
             WHERE q.id = \(id) AND q.active AND b.retired_at IS NULL
               AND \(unsafeRaw: BankSummary.visible("b", to: owner)) FOR UPDATE OF q, b
            """).first else { throw StoreError(.unknownQuestion) }
        guard row.optionalString("owner") == owner else { throw StoreError(.notOwner) }
        return try row.int("bank_id")
    }

    func insertQuestion(bank: Int, _ draft: QuestionDraft) throws -> JSONValue {
        var correctChoices: String?
        var accepted: [String?]?
        var matching: String?
        var number: Double?
        var tolerance: Double?
        switch draft.key {
        case .multiple(let correct): correctChoices = "{" + correct.sorted().map(String.init).joined(separator: ",") + "}"
        case .text(let texts, let how): accepted = texts; matching = how.rawValue
        case .number(let correct, let within): number = correct; tolerance = within
        case .single, .boolean: break
        }
        let id = try db.query("""
            INSERT INTO questions (bank_id, prompt, choices, correct_choice, source, type, correct_choices, accepted,
                                   matching, correct_number, tolerance)
            VALUES (\(bank), \(draft.prompt), \(PGArray(draft.choices.map { Optional($0) }))::text[],
                    \(draft.key.correctChoice), 'player', \(draft.type.rawValue), \(correctChoices)::int[],
                    \(accepted.map { PGArray($0) })::text[], \(matching), \(number), \(tolerance))
            RETURNING id
            """)[0].int64("id")
        try db.query("UPDATE banks SET updated_at = now() WHERE id = \(bank)")
        return DuelQuestion(id: id, prompt: draft.prompt, choices: draft.choices, key: draft.key)
            .ownerJSON(likes: 0, dislikes: 0)
    }

    /// A player's quiz by slug as `viewer` sees it; nil when there is none (retired included:
    /// callers decide who may see it).
    func quiz(slug: String, viewer: PlayerID) throws -> Quiz? {
        try db.query("""
            SELECT \(unsafeRaw: Quiz.columns(viewer: viewer)), b.retired_at IS NOT NULL AS retired
              FROM banks b JOIN players p ON p.id = b.owner_id WHERE b.slug = \(slug)
            """).first.map(Quiz.init(row:))
    }
}
