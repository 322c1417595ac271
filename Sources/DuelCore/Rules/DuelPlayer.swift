/// Opaque player id, as on the wire.
public typealias PlayerID = String

/// One of the players of a duel, as the duel state keeps them.
public struct DuelPlayer: Sendable, Codable, Equatable {
    public let id: PlayerID
    public let username: String
    /// The player's Glicko-2 rating in the duel's bank when the duel was created.
    ///
    /// A player is in at most one live duel, so this is also the pre-duel value
    /// used for the rating update at completion.
    public let rating: GlickoRating
    /// Sum of the points of this player's answers so far.
    public internal(set) var score: Int
    /// Whether the server believes the player holds a connection.
    public internal(set) var connected: Bool
    /// When the player's last connection closed; nil while connected.
    public internal(set) var disconnectedAtMs: Int64?
    /// When the player left a game of three or more (forfeit or abandonment); the others
    /// play on without them. Nil while in the game, and always in two-player duels, where
    /// leaving ends the duel.
    public internal(set) var leftAtMs: Int64?
    /// The player's lag as the server last measured it: the round trip of their connection,
    /// capped (issue 26). Their answers are credited this much earlier than they arrive, and
    /// a first correct answer of someone else waits this long for theirs. Nil until measured
    /// (no credit, no wait), and always with compensation off.
    public internal(set) var lagMs: Int64?
    /// A recorded opponent's answers (issue 27), given in by the engine at their times; nil for
    /// a person. A recording has no connection to lose, no lag and no progress, and its answers
    /// are not stored as anyone's.
    public let recording: [RecordedAnswer]?

    public init(id: PlayerID, username: String, rating: GlickoRating, recording: [RecordedAnswer]? = nil) {
        self.id = id
        self.username = username
        self.rating = rating
        self.score = 0
        self.connected = true
        self.disconnectedAtMs = nil
        self.recording = recording
    }

    /// The id of every recorded opponent: not an account (the nil UUID), so never anyone's.
    public static let recordedID: PlayerID = "00000000-0000-0000-0000-000000000000"

    /// Whether this seat is a recording, not a person.
    public var isRecorded: Bool { recording != nil }
}
