import DuelCore

/// A room as members see it (the `record` of `rooms` events and of every room op's reply).
public struct Room: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public let id: PlayerID
        public let username: String
        /// False while the member's last connection is closed (they leave after the
        /// abandonment delay).
        public let connected: Bool
    }

    public enum State: String, Sendable {
        /// Waiting for the host's `room_start`.
        case open
        /// A game of the room is live.
        case playing
        /// The last member left: the room is gone (the record of its DELETE event).
        case closed
    }

    public let code: String
    /// The bank's id, for the store (records name the bank by slug).
    let bankID: Int
    public let bank: String
    public let host: PlayerID
    public let questions: Int
    public let answerMs: Int
    public let maxPlayers: Int
    /// In the order they joined.
    public var members: [Member]
    public var state: State
    /// The current or last game.
    public let duelID: String?
    public let games: Int

    public var memberIDs: [PlayerID] { members.map(\.id) }

    /// The `room` event of this state (`"table":"rooms"`).
    public func event(type: String, nowMs: Int64) -> String {
        ServerMessage.rowEvent("room", table: "rooms", type: type, atMs: nowMs, record: json, serverTimeMs: nowMs)
    }

    public var json: JSONValue {
        .object([
            "code": .string(code),
            "bank": .string(bank),
            "host": .string(host),
            "questions": .number(questions),
            "answer_ms": .number(answerMs),
            "max_players": .number(maxPlayers),
            "members": .array(members.map {
                .object(["id": .string($0.id), "username": .string($0.username), "connected": .bool($0.connected)])
            }),
            "state": .string(state.rawValue),
            "duel_id": duelID.map { .string($0) } ?? .null,
            "games": .number(games),
        ])
    }

}

/// What a room op changed: the room after it, and whom its `rooms` event goes to.
public struct RoomChange: Sendable {
    public let room: Room
    /// A game the requester must forfeit (they left a room while its game was live).
    public var forfeit: String? = nil
    /// A game the op started (`room_start`).
    public var started: DuelUpdate? = nil
    /// Players of the started game whom no instance holds: their abandonment clocks must start.
    public var absent: [PlayerID] = []
}

/// What waits for a player at sign-in: their room, and challenges made to them meanwhile.
public struct WaitingSocial: Sendable {
    public var room: Room?
    public var challenges: [Challenge]

    public static let none = WaitingSocial(room: nil, challenges: [])
}
