import DuelCore

/// An event for players rather than for a duel's seats: a room's, a challenge's or a rematch
/// offer's new state, or a stored notification. It travels in its transaction's ``Outbox``,
/// and as a `player_events` NOTIFY payload to the instances that hold its other players:
///
///     @<origin> <order> <topic>      (only when a server announced it)
///     <player>,<player>,...
///     <event text>
///
/// An operator's SQL (`notify_player`) announces the last two lines alone: every instance
/// delivers those. `origin` is the instance that committed it, which delivered it to its own
/// connections already and ignores its announcement. `order` is the transaction's number from
/// `player_event_order`, taken while it held the topic's row lock, so a receiver can drop a
/// room's older state that reaches it after a newer one (two routes: its own outbox and NOTIFY).
public struct PlayerEvent: Sendable, Equatable {
    /// The NOTIFY channel every instance LISTENs on.
    public static let channel = "player_events"

    public let players: [PlayerID]
    public let text: String
    /// What the event is the whole state of (`room:<id>`, `challenge:<id>`, `rematch:<duel>`),
    /// so a newer one replaces it; nil for one-off events (notifications).
    public let topic: String?
    /// The announcing transaction's number (0 before it is announced, or when never announced).
    public internal(set) var order: Int64
    /// The instance that committed it ("" for an operator's SQL).
    public internal(set) var origin: String

    public init(players: [PlayerID], text: String, topic: String? = nil, order: Int64 = 0, origin: String = "") {
        self.players = players
        self.text = text
        self.topic = topic
        self.order = order
        self.origin = origin
    }

    /// The payload `notify_player` returns (`<player>\n<text>`), as an event with no topic.
    public init?(notification payload: Substring) {
        guard let newline = payload.firstIndex(of: "\n") else { return nil }
        let players = payload[..<newline].split(separator: ",").map(String.init)
        let text = String(payload[payload.index(after: newline)...])
        guard !players.isEmpty, !text.isEmpty else { return nil }
        self.init(players: players, text: text)
    }

    /// Parses a `player_events` payload; nil for one of another shape.
    public init?(payload: String) {
        guard payload.hasPrefix("@") else {
            self.init(notification: Substring(payload))
            return
        }
        guard let newline = payload.firstIndex(of: "\n") else { return nil }
        let header = payload[payload.index(after: payload.startIndex)..<newline].split(separator: " ")
        guard header.count == 3, let order = Int64(header[1]),
              let event = PlayerEvent(notification: payload[payload.index(after: newline)...])
        else { return nil }
        self.init(players: event.players, text: event.text, topic: header[2] == "-" ? nil : String(header[2]),
                  order: order, origin: String(header[0]))
    }

    /// The payload without its header: what the announcing statement prefixes with origin, order and topic.
    var body: String { players.joined(separator: ",") + "\n" + text }
}
