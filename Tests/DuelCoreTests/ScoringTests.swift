import Testing
@testable import DuelCore

@Suite struct ScoringTests {
    let rules = DuelConfiguration.standard

    @Test(arguments: [
        (Int64(0), 200), (1, 200), (999, 200), (1_000, 190), (1_001, 190), (5_500, 150),
        (9_000, 110), (9_999, 110), (10_000, 110),
    ])
    func correctAnswersScoreOneHundredPlusTheSpeedBonus(elapsedMs: Int64, points: Int) {
        #expect(Scoring.points(correct: true, atMs: 1_000 + elapsedMs, deadlineMs: 11_000, configuration: rules) == points)
    }

    @Test func wrongAnswersScoreNothing() {
        #expect(Scoring.points(correct: false, atMs: 0, deadlineMs: 10_000, configuration: rules) == 0)
    }

    @Test func everyCorrectAnswerIsWithinTheDocumentedRange() {
        for elapsed in stride(from: Int64(0), through: 10_000, by: 7) {
            let points = Scoring.points(correct: true, atMs: elapsed, deadlineMs: 10_000, configuration: rules)
            #expect((110...200).contains(points))
        }
    }
}
