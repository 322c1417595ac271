import DuelCore

/// A challenge by name (the `record` of `challenge` events and of `challenges`' list).
public struct Challenge: Sendable, Equatable {
    public enum State: String, Sendable {
        case pending, accepted, declined, expired
    }

    public let id: String
    public let from: (id: PlayerID, username: String)
    public let to: (id: PlayerID, username: String)
    public let bank: String
    /// The bank's id, for the store.
    let bankID: Int
    public let state: State
    public let createdAtMs: Int64
    public let expiresAtMs: Int64
    /// The game an accepted challenge started.
    public let duelID: String?

    public static func == (lhs: Challenge, rhs: Challenge) -> Bool {
        lhs.id == rhs.id && lhs.state == rhs.state && lhs.duelID == rhs.duelID
    }

    public var players: [PlayerID] { [from.id, to.id] }
    /// Its events' topic in an ``Outbox``: a newer state replaces an older one.
    var topic: String { "challenge:" + id }

    public var json: JSONValue {
        .object([
            "id": .string(id),
            "from": .object(["id": .string(from.id), "username": .string(from.username)]),
            "to": .object(["id": .string(to.id), "username": .string(to.username)]),
            "bank": .string(bank),
            "state": .string(state.rawValue),
            "created_at": .string(Timestamp.iso8601(ms: createdAtMs)),
            "expires_at": .string(Timestamp.iso8601(ms: expiresAtMs)),
            "duel_id": duelID.map { .string($0) } ?? .null,
        ])
    }

    /// The `challenge` event of this state: INSERT when made (or replayed to its target at
    /// sign-in), UPDATE for every later state.
    public func event(type: String, nowMs: Int64) -> String {
        ServerMessage.rowEvent(
            "challenge", table: "challenges", type: type, atMs: nowMs, record: json, serverTimeMs: nowMs)
    }

    init(row: PGRow) throws {
        id = try row.string("id")
        from = (try row.string("from_id"), try row.string("from_name"))
        to = (try row.string("to_id"), try row.string("to_name"))
        bank = try row.string("bank")
        bankID = try row.int("bank_id")
        state = State(rawValue: try row.string("state")) ?? .pending
        createdAtMs = try row.int64("created_ms")
        expiresAtMs = try row.int64("expires_ms")
        duelID = row["duel"]
    }

    /// The columns ``init(row:)`` reads, from `challenges c`.
    static let columns = """
        c.id::text AS id, c.from_player::text AS from_id, pf.username AS from_name,
        c.to_player::text AS to_id, pt.username AS to_name, b.slug AS bank, c.bank_id, c.state,
        (extract(epoch FROM c.created_at) * 1000)::bigint AS created_ms,
        (extract(epoch FROM c.expires_at) * 1000)::bigint AS expires_ms, c.duel_id::text AS duel
        """
    static let joins = """
        JOIN players pf ON pf.id = c.from_player JOIN players pt ON pt.id = c.to_player
        JOIN banks b ON b.id = c.bank_id
        """
}
