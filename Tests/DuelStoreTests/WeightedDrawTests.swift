import TestSupport
import DuelCore
@testable import DuelStore
import Testing

/// Likes and dislikes move how often a question is drawn (issue 13), within bounds: a liked
/// question comes up more often, a disliked one less, and none never.
@Suite struct WeightedDrawTests {
    let connection: PGConnection

    init() throws {
        connection = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        try connection.query("SELECT ops.create_bank('w', 'Weighted')")
        for n in 0..<10 {
            try connection.query("SELECT ops.add_question('w', \("Q\(n)?"), p_type => 'boolean', p_answer => 'true')")
        }
    }

    func counts(_ sets: [[DuelQuestion]]) -> [Int64: Int] {
        sets.flatMap { $0 }.reduce(into: [:]) { $0[$1.id, default: 0] += 1 }
    }

    @Test func theWeightFollowsVotesWithinItsBounds() throws {
        let weight = { (likes: Int, dislikes: Int) throws -> Double in
            try connection.query("SELECT ops.question_weight(\(likes), \(dislikes)) AS w")[0].double("w")
        }
        #expect(try weight(0, 0) == 1)
        #expect(try weight(1, 0) < 1.1)          // one vote barely counts
        #expect(try weight(1_000, 0) < 2)
        #expect(try weight(1_000, 0) > 1.9)
        #expect(try weight(0, 1_000) == 0.25)
    }

    @Test(arguments: [1, 8])
    func likedQuestionsComeUpMoreOftenAndDislikedOnesStillComeUp(count: Int) throws {
        let ids = try connection.query("SELECT id FROM questions ORDER BY id").map { try $0.int64("id") }
        // Evenly spaced draw keys: each question is probed as often as the others, so only the
        // weights tell them apart (random keys made one question's gap, and its count, large).
        try connection.query("""
            UPDATE questions q SET draw_key = r.n / 10.0
              FROM (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM questions) r WHERE q.id = r.id
            """)
        try connection.query("UPDATE questions SET likes = 90, weight = ops.question_weight(90, 0) WHERE id = \(ids[0])")
        try connection.query("UPDATE questions SET dislikes = 90, weight = ops.question_weight(0, 90) WHERE id = \(ids[1])")
        let bank = try #require(try QuizRepository(connection).bank(slug: "w")).id
        // count 1: the index probes' candidates are weighed; count 8 of 10: the small-bank
        // fallback weighs the whole bank in SQL.
        let drawn = counts(try QuizRepository(connection).drawQuestionSets(bankID: bank, count: count, sets: 3_000))
        let liked = drawn[ids[0]] ?? 0, disliked = drawn[ids[1]] ?? 0
        let plain = ids[2...].map { drawn[$0] ?? 0 }.reduce(0, +) / 8
        #expect(liked > plain && plain > disliked, "liked \(liked), plain \(plain), disliked \(disliked)")
        #expect(disliked > 0)
    }
}
