/// The operator-tunable numbers of a duel (rule 11 of PROTOCOL.md).
///
/// Every duration is in milliseconds of the server's clock. A duel copies the
/// values it was created with into its own state, so changing the configuration
/// of a running server never changes the rules of a duel already under way.
public struct DuelConfiguration: Sendable, Codable, Equatable {
    /// Pause between `init` and the first `question` event (rule 2).
    public var countdownMs: Int64
    /// How long each question stays open (rule 3).
    public var answerWindowMs: Int64
    /// How long a reveal stays before the next question opens (rule 7).
    public var revealMs: Int64
    /// How long a player may stay disconnected from a live duel before forfeiting (rule 8).
    public var abandonAfterMs: Int64
    /// Questions per duel; fewer when the bank has fewer (rule 2).
    public var questionCount: Int
    /// Base points for a correct answer (rule 6).
    public var basePoints: Int
    /// Bonus points per started second left before the deadline (rule 6).
    public var bonusPerSecond: Int
    /// Glicko-2 system constant τ, which limits how fast volatility moves.
    public var glickoTau: Double
    /// Stored as nil for false, so a duel started before issue 25's change (its state has no such
    /// key) decodes as false and its input log replays by the rule it was played by.
    private var revealOpensNext: Bool?

    /// Whether the round that reveals a question opens the next one, stamped at the pause's end
    /// (issue 25), rather than a deadline's `advance` at the pause's end. True for every duel
    /// started now; false only for duels started by an older server, whose stored events were
    /// made the old way.
    public var opensNextInReveal: Bool {
        get { revealOpensNext ?? false }
        set { revealOpensNext = newValue ? true : nil }
    }

    public init(
        countdownMs: Int64 = 3_000,
        answerWindowMs: Int64 = 10_000,
        revealMs: Int64 = 2_000,
        abandonAfterMs: Int64 = 60_000,
        questionCount: Int = 10,
        basePoints: Int = 100,
        bonusPerSecond: Int = 10,
        glickoTau: Double = 0.5,
        opensNextInReveal: Bool = true
    ) {
        self.countdownMs = countdownMs
        self.answerWindowMs = answerWindowMs
        self.revealMs = revealMs
        self.abandonAfterMs = abandonAfterMs
        self.questionCount = questionCount
        self.basePoints = basePoints
        self.bonusPerSecond = bonusPerSecond
        self.glickoTau = glickoTau
        self.opensNextInReveal = opensNextInReveal
    }

    /// The defaults of PROTOCOL.md: 3 s countdown, 10 s per question, 2 s reveal, 60 s abandonment, 10 questions.
    public static let standard = DuelConfiguration()

    /// Problems that would make the rules meaningless, as readable sentences; empty when valid.
    public var problems: [String] {
        var found: [String] = []
        if countdownMs < 0 { found.append("countdown must not be negative") }
        if answerWindowMs < 1 { found.append("answer window must be at least 1 ms") }
        if revealMs < 0 { found.append("reveal pause must not be negative") }
        if abandonAfterMs < 1 { found.append("abandonment delay must be at least 1 ms") }
        if questionCount < 1 { found.append("question count must be at least 1") }
        if basePoints < 0 || bonusPerSecond < 0 { found.append("points must not be negative") }
        if !(glickoTau > 0) { found.append("Glicko-2 tau must be positive") }
        return found
    }
}
