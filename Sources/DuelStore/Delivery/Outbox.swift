import DuelCore

/// Everything one transaction has for players beside its duel events (issue 22, one delivery
/// route): rooms', challenges' and rematch offers' new states, and stored notifications.
///
/// The store fills it inside the transaction and announces what other instances must hear with
/// one NOTIFY statement at the transaction's end (``announce(on:)``), so a rolled-back change
/// announces nothing. After the commit the server delivers the whole outbox to the connections
/// it holds (`PlayerNotifications.deliver`) and ignores its own announcements when LISTEN
/// hears them. Filled by one thread, then handed to the lws thread: never shared while filled.
public final class Outbox: @unchecked Sendable {
    public private(set) var events: [PlayerEvent] = []
    /// Per event: whether other instances must hear it.
    private var announced: [Bool] = []

    public init() {}

    public var isEmpty: Bool { events.isEmpty }

    /// Adds `text` for `players` (duplicates dropped). `announce`: whether other instances must
    /// hear it (rooms and challenges always: their members may be held anywhere).
    func add(_ players: [PlayerID], _ text: String, topic: String? = nil, announce: Bool = true) {
        var seen = Set<PlayerID>()
        let unique = players.filter { seen.insert($0).inserted }
        guard !unique.isEmpty else { return }
        events.append(PlayerEvent(players: unique, text: text, topic: topic))
        announced.append(announce)
    }

    /// Adds a stored notification, from its payload (`notification_payload`, as `notify_player`
    /// and `grant_achievements` return it).
    func add(notification payload: String, announce: Bool) {
        guard let event = PlayerEvent(notification: Substring(payload)) else { return }
        add(event, announce: announce)
    }

    /// Adds an event already parsed (a notification whose player decides its announcement).
    func add(_ event: PlayerEvent, announce: Bool) {
        events.append(event)
        announced.append(announce)
    }

    /// Moves another outbox's events (a transaction that committed) into this one.
    func take(_ other: Outbox) {
        events += other.events
        announced += other.announced
    }

    /// NOTIFYs `player_events` with every event from `mark` on that other instances must hear, in
    /// one statement, inside the caller's transaction, under the origin of `db` (the instance).
    /// The statement takes the transaction's number from `player_event_order` and stamps it on
    /// those events. Called last in the transaction, while it still holds the rows whose states
    /// the events carry.
    func announce(on db: PGConnection, from mark: Int = 0) throws {
        let range = mark..<events.count
        let bodies = range.filter { announced[$0] }.map { Optional((events[$0].topic ?? "-") + "\n" + events[$0].body) }
        guard !bodies.isEmpty else { return }
        let origin = db.notificationOrigin.isEmpty ? "-" : db.notificationOrigin
        let order = try db.query("""
            WITH n AS (SELECT nextval('player_event_order') AS n),
                 told AS (SELECT pg_notify(\(PlayerEvent.channel), '@' || \(origin) || ' ' || n.n || ' ' || b)
                            FROM n, unnest(\(PGArray(bodies))::text[]) AS b)
            SELECT n, (SELECT count(*) FROM told) AS told FROM n
            """)[0].int64("n")
        for index in range {
            events[index].order = order
            events[index].origin = origin
        }
    }

    /// Runs `body` in a transaction on `db` that announces what it added last
    /// (``announce(on:from:)``). A retried attempt starts again from what was here before it.
    func transaction<T>(on db: PGConnection, _ body: (PGConnection) throws -> T) throws -> T {
        let mark = events.count
        do {
            return try db.transaction { db in
                truncate(to: mark)
                return try announcing(on: db) { try body(db) }
            }
        } catch {
            truncate(to: mark)
            throw error
        }
    }

    /// Runs `body`, then announces what it added (outside a transaction: a statement that
    /// committed on its own, such as a presence change).
    func announcing<T>(on db: PGConnection, _ body: () throws -> T) throws -> T {
        let mark = events.count
        let result = try body()
        try announce(on: db, from: mark)
        return result
    }

    /// Forgets what a rolled-back transaction added.
    func truncate(to mark: Int) {
        events.removeSubrange(mark...)
        announced.removeSubrange(mark...)
    }
}
