import DuelCore

/// A player as the `player` object of PROTOCOL.md describes them.
public struct PlayerProfile: Sendable, Equatable {
    public let id: PlayerID
    public let username: String
    public let games: Int
    public let wins: Int
    public let losses: Int
    public let draws: Int
    public let totalScore: Int64
    /// Rounded rating by bank slug; banks never played show 1500.
    public let ratings: [String: Int]
    /// XP, level (with its title, colour and line), the XP of this level and the next, and the
    /// streak (issue 14).
    public var progress: JSONObject = [:]

    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "username": .string(username), "games": .number(games), "wins": .number(wins),
            "losses": .number(losses), "draws": .number(draws), "total_score": .int(totalScore),
            "ratings": .object(JSONObject(ratings.sorted { $0.key < $1.key }.map { ($0.key, .number($0.value)) })),
        ]
        for (key, value) in progress.pairs { object[key] = value }
        return .object(object)
    }
}
