import DuelCore

/// A bank as the `banks` op lists it.
public struct BankSummary: Sendable, Equatable {
    public let id: Int
    public let slug: String
    public let title: String
    public let description: String
    public let theme: String
    public let difficulty: String
    /// Active questions.
    public let questions: Int

    public var json: JSONValue {
        .object([
            "slug": .string(slug), "title": .string(title), "questions": .number(questions),
            "description": .string(description), "theme": .string(theme), "difficulty": .string(difficulty),
        ])
    }
}

extension PGConnection {
    public func banks() throws -> [BankSummary] {
        try query("""
            SELECT b.id, b.slug, b.title, b.description, b.theme, b.difficulty,
                   (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions
              FROM banks b WHERE b.retired_at IS NULL ORDER BY b.slug
            """).map(BankSummary.init(row:))
    }

    public func bank(slug: String) throws -> BankSummary? {
        try query("""
            SELECT b.id, b.slug, b.title, b.description, b.theme, b.difficulty,
                   (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions
              FROM banks b WHERE b.slug = \(slug)
            """).first.map(BankSummary.init(row:))
    }

    /// Draws up to `count` distinct active questions of a bank at random.
    ///
    /// Each question has a random `draw_key`; the draw probes the index at random
    /// points (one index lookup each, wrapping around at the end), so it costs the
    /// same on a bank of a million questions as on one of forty. A small bank,
    /// where probes collide often, falls back to sorting its few rows randomly.
    public func drawQuestions(bankID: Int, count: Int) throws -> [DuelQuestion] {
        try drawQuestionSets(bankID: bankID, count: count, sets: 1).first ?? []
    }

    /// Draws `sets` independent sets of up to `count` distinct questions in one
    /// query (the matcher creates many duels per transaction). Each set gets its
    /// own slice of `3 × count` random index probes; a set whose probes collided
    /// too often (a small bank) is drawn again by sorting the bank's rows randomly.
    public func drawQuestionSets(bankID: Int, count: Int, sets: Int) throws -> [[DuelQuestion]] {
        guard sets > 0 else { return [] }
        let perSet = count * 3
        let rows = try query("""
            SELECT p.n, \(unsafeRaw: DuelQuestion.columns("q"))
              FROM (SELECT n, random() AS r FROM generate_series(0, \(sets * perSet - 1)) n) p
              CROSS JOIN LATERAL (
                    (SELECT * FROM questions
                      WHERE bank_id = \(bankID) AND active AND draw_key >= p.r
                      ORDER BY draw_key LIMIT 1)
                    UNION ALL
                    (SELECT * FROM questions
                      WHERE bank_id = \(bankID) AND active
                      ORDER BY draw_key LIMIT 1)
                    LIMIT 1) q
            """)
        var drawn = [[DuelQuestion]](repeating: [], count: sets)
        var seen = [Set<Int64>](repeating: [], count: sets)
        for row in rows {
            let set = try row.int("n") / perSet
            let question = try DuelQuestion(row: row)
            if seen[set].insert(question.id).inserted { drawn[set].append(question) }
        }
        for set in drawn.indices {
            if drawn[set].count < count {
                drawn[set] = try query("""
                    SELECT \(unsafeRaw: DuelQuestion.columns("q")) FROM questions q
                     WHERE bank_id = \(bankID) AND active ORDER BY random() LIMIT \(count)
                    """).map(DuelQuestion.init(row:))
            }
            drawn[set].shuffle()
            drawn[set] = Array(drawn[set].prefix(count))
        }
        return drawn
    }
}

extension BankSummary {
    init(row: PGRow) throws {
        self.init(
            id: try row.int("id"), slug: try row.string("slug"), title: try row.string("title"),
            description: try row.string("description"), theme: try row.string("theme"),
            difficulty: try row.string("difficulty"), questions: try row.int("questions"))
    }
}
