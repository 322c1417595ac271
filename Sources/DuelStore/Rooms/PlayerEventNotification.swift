import DuelCore

/// A `player_events` payload, parsed.
public struct PlayerEventNotification: Sendable, Equatable {
    public let players: [PlayerID]
    public let text: String

    public init?(payload: String) {
        guard let newline = payload.firstIndex(of: "\n") else { return nil }
        players = payload[..<newline].split(separator: ",").map(String.init)
        text = String(payload[payload.index(after: newline)...])
        guard !players.isEmpty, !text.isEmpty else { return nil }
    }
}
