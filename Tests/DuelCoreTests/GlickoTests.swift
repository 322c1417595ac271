import Testing
@testable import DuelCore

@Suite struct GlickoTests {
    /// Glickman's worked example ("Example of the Glicko-2 system", 2013).
    @Test func publishedExample() {
        let player = GlickoRating(rating: 1500, deviation: 200, volatility: 0.06)
        let updated = Glicko2(tau: 0.5).update(player, against: [
            (GlickoRating(rating: 1400, deviation: 30, volatility: 0.06), .win),
            (GlickoRating(rating: 1550, deviation: 100, volatility: 0.06), .loss),
            (GlickoRating(rating: 1700, deviation: 300, volatility: 0.06), .loss),
        ])
        #expect(abs(updated.rating - 1464.05) < 0.01)
        #expect(abs(updated.deviation - 151.52) < 0.01)
        #expect(abs(updated.volatility - 0.05999) < 0.0001)
    }

    @Test func bothSidesUseThePreGameValues() {
        let a = GlickoRating.newPlayer
        let b = GlickoRating(rating: 1700, deviation: 80, volatility: 0.06)
        let glicko = Glicko2()
        let (newA, newB) = glicko.rate(a, b, outcomeForA: .win)
        #expect(newA == glicko.update(a, against: [(b, .win)]))
        #expect(newB == glicko.update(b, against: [(a, .loss)]))
        // An upset moves the uncertain newcomer far and the settled player a little.
        #expect(newA.rating - a.rating > 100)
        #expect(b.rating - newB.rating < 30)
        #expect(newA.deviation < a.deviation)
    }

    @Test func drawsBetweenEqualsKeepTheRating() {
        let (a, b) = Glicko2().rate(.newPlayer, .newPlayer, outcomeForA: .draw)
        #expect(abs(a.rating - 1500) < 1e-9)
        #expect(a == b)
        #expect(a.deviation < 350)
    }

    @Test func winsAndLossesAreSymmetricForEquals() {
        let (winner, loser) = Glicko2().rate(.newPlayer, .newPlayer, outcomeForA: .win)
        #expect(abs((winner.rating - 1500) + (loser.rating - 1500)) < 1e-9)
        #expect(winner.displayed > 1500)
    }

    @Test func aPeriodWithoutGamesWidensTheDeviation() {
        let settled = GlickoRating(rating: 1600, deviation: 50, volatility: 0.06)
        let later = Glicko2().update(settled, against: [])
        #expect(later.rating == 1600)
        #expect(later.deviation > 50)
        #expect(Glicko2().update(.newPlayer, against: []).deviation == 350)
    }
}
