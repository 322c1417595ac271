import Foundation
import DuelCore

extension QuizRepository {
    /// `unknown_bank` unless bank `id` may still be played by one of `players`: not retired, and
    /// an operator's bank, a published quiz, or a quiz one of them owns (rooms and challenges
    /// made earlier check it again: the quiz may have been deleted or unpublished since).
    func checkPlayable(_ id: Int, by players: [PlayerID]) throws {
        guard try !db.query("""
            SELECT 1 FROM banks b
             WHERE id = \(id) AND retired_at IS NULL
               AND (b.owner_id IS NULL OR b.published_at IS NOT NULL OR b.owner_id = ANY (\(PGArray(players.map { Optional($0) }))::uuid[]))
            """).isEmpty else { throw StoreError(.unknownBank, "that quiz is no longer available") }
    }

    /// The banks offered to players (`banks`): in matchmaking, and holding at least
    /// `questionsNeeded` active questions, the number a duel draws (issue 23: a bank an operator
    /// had just created with one question was offered, and its button then failed).
    public func banks(questionsNeeded: Int = 1) throws -> [BankSummary] {
        try db.query("""
            SELECT * FROM (
                SELECT b.id, b.slug, b.title, b.description, b.theme, b.difficulty,
                       (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions
                  FROM banks b WHERE b.retired_at IS NULL AND \(unsafeRaw: BankSummary.inMatchmaking("b"))) offered
             WHERE questions >= \(questionsNeeded)
             ORDER BY slug
            """).map(BankSummary.init(row:))
    }

    public func bank(slug: String) throws -> BankSummary? {
        try db.query("""
            SELECT b.id, b.slug, b.title, b.description, b.theme, b.difficulty,
                   (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions
              FROM banks b WHERE b.slug = \(slug)
            """).first.map(BankSummary.init(row:))
    }

    /// Bank `slug` if `viewer` may see it (``BankSummary/visible(_:to:)``), retired ones
    /// included (their figures stay readable); `unknown_bank` otherwise, as for a missing slug.
    public func visibleBank(slug: String, viewer: PlayerID?) throws -> BankSummary {
        guard let bank = try db.query("""
            SELECT b.id, b.slug, b.title, b.description, b.theme, b.difficulty,
                   (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions
              FROM banks b WHERE b.slug = \(slug) AND \(unsafeRaw: BankSummary.visible("b", to: viewer))
            """).first.map(BankSummary.init(row:)) else { throw StoreError(.unknownBank) }
        return bank
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
        let rows = try db.query("""
            SELECT p.n, \(unsafeRaw: DuelQuestion.columns("q")), q.weight
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
        // Candidates per set with their weighted random keys (Efraimidis-Spirakis: -ln(u) / weight,
        // smallest first), so a question liked more comes up more often, within its weight's
        // bounds (migration 014).
        var drawn = [[(key: Double, question: DuelQuestion)]](repeating: [], count: sets)
        var seen = [Set<Int64>](repeating: [], count: sets)
        for row in rows {
            let set = try row.int("n") / perSet
            let question = try DuelQuestion(row: row)
            if seen[set].insert(question.id).inserted {
                drawn[set].append((-log(1 - Double.random(in: 0..<1)) / (try row.double("weight")), question))
            }
        }
        return try drawn.map { candidates in
            if candidates.count < count {
                // The same weighting, in SQL, over the whole of a small bank.
                return try db.query("""
                    SELECT \(unsafeRaw: DuelQuestion.columns("q")) FROM questions q
                     WHERE bank_id = \(bankID) AND active ORDER BY -ln(1 - random()) / q.weight LIMIT \(count)
                    """).map(DuelQuestion.init(row:))
            }
            return candidates.sorted { $0.key < $1.key }.prefix(count).map(\.question)
        }
    }
}
