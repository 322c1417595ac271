import DuelCore

extension ProgressRepository {
    /// A bank's ratings, best first (`leaderboard` op). Players who never finished a duel there are not listed.
    /// A quiz `viewer` may not see is `unknown_bank`, as a missing one.
    public func leaderboard(bank slug: String, limit: Int, viewer: PlayerID? = nil) throws -> [JSONValue] {
        let bank = try QuizRepository(db).visibleBank(slug: slug, viewer: viewer)
        return try db.query("""
            SELECT p.id::text AS id, p.username, r.rating, r.games, r.wins
              FROM ratings r JOIN players p ON p.id = r.player_id
             WHERE r.bank_id = \(bank.id) AND r.games > 0
             ORDER BY r.rating DESC, r.games DESC, p.username
             LIMIT \(limit)
            """).enumerated().map { index, row in
            .object([
                "rank": .number(index + 1), "player": .string(try row.string("id")),
                "username": .string(try row.string("username")),
                "rating": .number(Int(try row.double("rating").rounded())),
                "games": .number(try row.int("games")), "wins": .number(try row.int("wins")),
            ])
        }
    }

    /// The player's finished duels, newest first (`history` op): each the final record of the duel.
    public func history(player: PlayerID, limit: Int) throws -> [JSONValue] {
        try db.query("""
            SELECT e.record::text AS record
              FROM duels d JOIN duel_events e ON e.duel_id = d.id AND e.seq = d.last_seq
             WHERE (d.player_a = \(player)::uuid OR d.player_b = \(player)::uuid
                    OR (d.more_players IS NOT NULL AND d.more_players @> ARRAY[\(player)::uuid]))
               AND d.state = 'finished'
             ORDER BY d.finished_at DESC
             LIMIT \(limit)
            """).map { try JSONParser.parse(try $0.string("record")) }
    }

    /// Questions the player missed (wrong or unanswered) in finished games against others,
    /// newest first, less those practice taught (`mistakes` op).
    public func mistakes(player: PlayerID, limit: Int) throws -> [JSONValue] {
        // The notebook (the view mistakes_notebook, for operators), with the taught questions
        // passed in: see LearnedQuestions.
        // The questions in a second read: on Citus the misses' query runs on the games' shards,
        // and a reference table joined to its UNION is refused.
        let learned = try LearnedQuestions(player: player, on: db)
        let misses = try db.query("""
            SELECT n.question_id::text AS question, n.choice, n.choices AS picked, n.answer_text, n.answer_number,
                   n.duel_id::text AS duel
              FROM missed_questions n
             WHERE n.player_id = \(player)::uuid
               AND NOT coalesce(is_learned((\(learned.times)::timestamptz[])[array_position(\(learned.ids)::bigint[], n.question_id)],
                                           n.finished_at), false)
             ORDER BY n.finished_at DESC, n.question_index
             LIMIT \(limit)
            """)
        var questions: [String: DuelQuestion] = [:]
        if !misses.isEmpty {
            for row in try db.query("""
                SELECT \(unsafeRaw: DuelQuestion.columns("q")) FROM questions q
                 WHERE q.id = ANY(\(PGArray(try misses.map { Optional(try $0.string("question")) }))::bigint[])
                """) {
                let question = try DuelQuestion(row: row)
                questions[String(question.id)] = question
            }
        }
        return try misses.compactMap { row in
            guard let question = questions[try row.string("question")] else { return nil }
            return Self.mistake(question, answer: try row.submission(choicesColumn: "picked"), duel: try row.string("duel"))
        }
    }

    /// One entry of `mistakes`: version 1's fields first (`correct_choice` and `your_choice` are
    /// null for types without one choice), then the type, its key fields and the answer of any
    /// type. (A function of its own: inlined in the row closure, it crashed the 6.3 optimizer.)
    static func mistake(_ question: DuelQuestion, answer: Submission?, duel: String) -> JSONValue {
        var fields: JSONObject = [
            "question_id": .int(question.id), "prompt": .string(question.prompt),
            "choices": .array(question.choices.map { .string($0) }),
            "correct_choice": question.correctChoice.map { .number($0) } ?? .null,
            "your_choice": answer?.choice.map { .number($0) } ?? .null,
            "duel_id": .string(duel),
            "type": .string(question.type.rawValue),
        ]
        for (name, value) in question.key.json.pairs where name != "correct_choice" { fields[name] = value }
        fields["your_answer"] = answer?.json ?? .null
        return .object(fields)
    }

    /// How many questions of the player's notebook practice made learned: with a miss, in a
    /// finished game against others, that `is_learned` (bank practice of questions never
    /// missed does not count).
    public func learnedCount(player: PlayerID) throws -> Int {
        // The taught questions with a miss they taught (see LearnedQuestions).
        let learned = try LearnedQuestions(player: player, on: db)
        return try db.query("""
            SELECT count(DISTINCT m.question_id) AS n FROM missed_questions m
             WHERE m.player_id = \(player)::uuid
               AND coalesce(is_learned((\(learned.times)::timestamptz[])[array_position(\(learned.ids)::bigint[], m.question_id)],
                                       m.finished_at), false)
            """)[0].int("n")
    }
}
