import Foundation

/// Glicko-2 rating updates (Glickman, "Example of the Glicko-2 system", 2013).
///
/// QuizDuel rates every duel as its own rating period with one game, so
/// ``update(_:against:)`` is called with one opponent; the general form is kept
/// for the published test vector.
public struct Glicko2: Sendable {
    /// System constant τ: smaller values keep volatility from moving fast.
    public var tau: Double
    /// Convergence tolerance of the volatility iteration.
    public var epsilon: Double = 0.000_001

    /// Glicko-2's scale factor between the Glicko and Glicko-2 scales.
    static let scale = 173.7178

    public init(tau: Double = 0.5) {
        self.tau = tau
    }

    /// The new rating of `player` after the games in `results` (opponent's pre-game rating, outcome).
    public func update(_ player: GlickoRating, against results: [(GlickoRating, GameOutcome)]) -> GlickoRating {
        let mu = (player.rating - 1500) / Self.scale
        let phi = player.deviation / Self.scale
        guard !results.isEmpty else {
            // A period without games only widens the deviation (step 6 of the paper).
            let widened = (phi * phi + player.volatility * player.volatility).squareRoot()
            return GlickoRating(rating: player.rating, deviation: min(350, widened * Self.scale), volatility: player.volatility)
        }

        var inverseV = 0.0
        var improvement = 0.0
        for (opponent, outcome) in results {
            let muJ = (opponent.rating - 1500) / Self.scale
            let phiJ = opponent.deviation / Self.scale
            let g = Self.g(phiJ)
            let expected = 1 / (1 + exp(-g * (mu - muJ)))
            inverseV += g * g * expected * (1 - expected)
            improvement += g * (outcome.score - expected)
        }
        let v = 1 / inverseV
        let delta = v * improvement

        let sigma = newVolatility(phi: phi, sigma: player.volatility, v: v, delta: delta)
        let phiStar = (phi * phi + sigma * sigma).squareRoot()
        let newPhi = 1 / (1 / (phiStar * phiStar) + 1 / v).squareRoot()
        let newMu = mu + newPhi * newPhi * improvement
        return GlickoRating(
            rating: newMu * Self.scale + 1500,
            deviation: min(350, newPhi * Self.scale),
            volatility: sigma
        )
    }

    /// Both players' new ratings after one game, each computed from the same pre-game values.
    public func rate(_ a: GlickoRating, _ b: GlickoRating, outcomeForA: GameOutcome) -> (GlickoRating, GlickoRating) {
        (update(a, against: [(b, outcomeForA)]), update(b, against: [(a, outcomeForA.opposite)]))
    }

    static func g(_ phi: Double) -> Double {
        1 / (1 + 3 * phi * phi / (Double.pi * Double.pi)).squareRoot()
    }

    /// Step 5 of the paper: the Illinois-method root search for the new volatility.
    func newVolatility(phi: Double, sigma: Double, v: Double, delta: Double) -> Double {
        let a = log(sigma * sigma)
        let phi2 = phi * phi
        func f(_ x: Double) -> Double {
            let ex = exp(x)
            let denominator = 2 * (phi2 + v + ex) * (phi2 + v + ex)
            return ex * (delta * delta - phi2 - v - ex) / denominator - (x - a) / (tau * tau)
        }
        var bigA = a
        var bigB: Double
        if delta * delta > phi2 + v {
            bigB = log(delta * delta - phi2 - v)
        } else {
            var k = 1.0
            while f(a - k * tau) < 0 { k += 1 }
            bigB = a - k * tau
        }
        var fA = f(bigA)
        var fB = f(bigB)
        // Bounded: the method converges in a handful of steps; the cap guards against NaN inputs.
        var steps = 0
        while abs(bigB - bigA) > epsilon && steps < 200 {
            let c = bigA + (bigA - bigB) * fA / (fB - fA)
            let fC = f(c)
            if fC * fB <= 0 {
                bigA = bigB
                fA = fB
            } else {
                fA /= 2
            }
            bigB = c
            fB = fC
            steps += 1
        }
        return exp(bigA / 2)
    }
}
