/// A Glicko-2 rating on the familiar Glicko scale (1500 ± 350).
public struct GlickoRating: Sendable, Codable, Equatable, Hashable {
    public var rating: Double
    /// Rating deviation: the uncertainty of `rating`.
    public var deviation: Double
    public var volatility: Double

    public init(rating: Double, deviation: Double, volatility: Double) {
        self.rating = rating
        self.deviation = deviation
        self.volatility = volatility
    }

    /// Where every new player starts, in every bank.
    public static let newPlayer = GlickoRating(rating: 1500, deviation: 350, volatility: 0.06)

    /// The rating as shown to people: rounded to a whole number.
    public var displayed: Int { Int(rating.rounded()) }
}

/// The outcome of one game from one player's side.
public enum GameOutcome: Sendable, Equatable {
    case win, draw, loss

    /// Glicko's score `s`: 1, ½ or 0.
    public var score: Double {
        switch self {
        case .win: 1
        case .draw: 0.5
        case .loss: 0
        }
    }

    public var opposite: GameOutcome {
        switch self {
        case .win: .loss
        case .draw: .draw
        case .loss: .win
        }
    }
}
