import DuelCore
@testable import DuelServer
@testable import DuelStore
import Logging
import Synchronization
import Testing

/// The server's parts (issue 22) without a socket or a database: a transport that records what
/// would go out, and the parts built as `DuelServerCore` builds them.
final class RecordingTransport: Transport, @unchecked Sendable {
    private(set) var sent: [(connection: UInt64, text: String)] = []
    private(set) var closed: [(connection: UInt64, code: CloseCode)] = []
    private let wakes = Mutex(0)

    func send(_ connection: Connection, _ text: String) { sent.append((connection.id, text)) }
    func close(_ connection: Connection, _ code: CloseCode, _ reason: String) { closed.append((connection.id, code)) }
    func wake() { wakes.withLock { $0 += 1 } }
    func wakeUp(atMs dueMs: Int64) {}

    func texts(to connection: UInt64) -> [String] { sent.filter { $0.connection == connection }.map(\.text) }
}

/// The parts, wired as the core wires them. The pool and lanes point at no database: nothing
/// these tests do reaches it.
struct Parts {
    let transport = RecordingTransport()
    let connections = ConnectionTable()
    let metrics = Metrics()
    let replies: Replies
    let jobs: ServerJobs
    let notifications: PlayerNotifications
    let delivery: DuelDelivery
    let timer: DeadlineTimer

    init() {
        let logger = Logger(label: "parts-test")
        replies = Replies(transport: transport, metrics: metrics, logger: logger)
        notifications = PlayerNotifications(connections: connections, replies: replies, instance: "test")
        jobs = ServerJobs(
            pool: DatabasePool(conninfo: "host=/nonexistent", size: 1),
            lanes: DuelLanes(conninfo: "host=/nonexistent", count: 1, origin: "test", logger: logger),
            inbox: Inbox(), transport: transport, connections: connections, metrics: metrics, notifications: notifications)
        timer = DeadlineTimer(transport: transport)
        delivery = DuelDelivery(
            connections: connections, replies: replies, jobs: jobs, timer: timer,
            lanes: DuelLanes(conninfo: "host=/nonexistent", count: 1, origin: "test", logger: logger),
            metrics: metrics, instance: "test", measuresLag: true, logger: logger)
    }

    /// A connection here signed in as `player`.
    func connect(_ id: UInt64, as player: PlayerID?) -> Connection {
        let connection = Connection(id: id, address: "127.0.0.1", limiter: RateLimiter())
        connections.opened(connection)
        if let player {
            connection.player = player
            _ = connections.directory.attach(id, to: player)
        }
        return connection
    }
}

func event(_ duel: String, _ seq: Int, _ kind: DuelEventKind) -> StoredEvent {
    StoredEvent(duelID: duel, seq: seq, kind: kind, atMs: Int64(seq), recordJSON: #"{"seq":\#(seq)}"#)
}

@Suite struct DuelDeliveryPartTests {
    @Test func eachEventReachesEveryConnectionOfEachPlayerOnceAndInOrder() {
        let parts = Parts()
        let a1 = parts.connect(1, as: "a"), a2 = parts.connect(2, as: "a"), b = parts.connect(3, as: "b")
        _ = parts.connect(4, as: "c")
        parts.delivery.deliver([event("d", 1, .`init`), event("d", 2, .question)], players: ["a", "b"])
        // The same events again (a NOTIFY of this instance's own batch, a retry): nothing new.
        parts.delivery.deliver([event("d", 2, .question)], players: ["a", "b"])
        parts.delivery.deliver([event("d", 3, .answered)], players: ["a", "b"])
        for connection in [a1, a2, b] {
            let seqs = parts.transport.texts(to: connection.id).compactMap { text in
                try? JSONParser.parse(text)["seq"]?.integer
            }
            #expect(seqs == [1, 2, 3], "connection \(connection.id)")
        }
        #expect(parts.transport.texts(to: 4).isEmpty)
        #expect(parts.metrics.eventsSent == 9)
    }

    @Test func aFinishedDuelIsNotDeliveredAgain() {
        let parts = Parts()
        let a = parts.connect(1, as: "a")
        parts.delivery.deliver([event("d", 1, .`init`), event("d", 2, .complete)], players: ["a"])
        parts.delivery.deliver([event("d", 2, .complete)], players: ["a"])
        #expect(parts.transport.texts(to: a.id).count == 2)
        #expect(parts.delivery.book.isFinished("d"))
    }

    /// An input applied here to a duel another instance already finished (an operator's end
    /// both instances apply) commits nothing: it must not mark the duel finished, or the other
    /// instance's `complete`, announced just after, is dropped and the players here never see
    /// the end (found on Citus, bench/NOTES.md item 24).
    @Test func aDuelFinishedElsewhereStillDeliversItsCompleteHere() {
        let parts = Parts()
        let a = parts.connect(1, as: "a")
        parts.delivery.deliver([event("d", 1, .`init`)], players: ["a", "b"])
        parts.delivery.apply(DuelUpdate(
            duelID: "d", seq: 2, players: ["a", "b"], outcome: .accepted, events: [], nextDeadlineMs: nil, finished: true))
        #expect(!parts.delivery.book.isFinished("d"))
        // The other instance's announcement, read from the store.
        parts.delivery.deliver([event("d", 2, .complete)], players: ["a", "b"])
        #expect(parts.transport.texts(to: a.id).count == 2)
        #expect(parts.delivery.book.isFinished("d"))
    }

    @Test func aSignInContinuesFromTheLiveRecordAndLogoutForgets() {
        let parts = Parts()
        let a = parts.connect(1, as: "a")
        _ = parts.delivery.signedIn(a, live: [event("d", 4, .reveal), event("d", 5, .question)])
        parts.delivery.deliver([event("d", 5, .question), event("d", 6, .answered)], players: ["a"])
        #expect(parts.transport.texts(to: a.id).count == 1)
        parts.delivery.forget(a)
        parts.delivery.deliver([event("d", 7, .reveal)], players: ["a"])
        // After forgetting, seq 7 with nothing delivered is a gap: it is read, not sent blindly.
        #expect(parts.transport.texts(to: a.id).count == 1)
    }

    @Test func theAnnounceRuleAsksWhoIsHeldHere() {
        let parts = Parts()
        _ = parts.connect(1, as: "a")
        _ = parts.connect(2, as: "b")
        #expect(parts.delivery.needsAnnouncement("unknown"))
        parts.delivery.deliver([event("d", 1, .`init`)], players: ["a", "b"])
        parts.delivery.apply(DuelUpdate(
            duelID: "d", seq: 1, players: ["a", "b"], outcome: .accepted, events: [], nextDeadlineMs: nil, finished: false))
        #expect(!parts.delivery.needsAnnouncement("d"))
        parts.connections.directory.markShared("b")
        #expect(parts.delivery.needsAnnouncement("d"))
    }
}

@Suite struct PlayerNotificationsPartTests {
    @Test func aPlayerEventGoesToThatPlayersConnectionsOnly() {
        let parts = Parts()
        let a1 = parts.connect(1, as: "a"), a2 = parts.connect(2, as: "a"), b = parts.connect(3, as: "b")
        parts.notifications.playerEventsNotified("a\n{\"event\":\"room\"}")
        parts.notifications.playerEventsNotified("malformed payload without a line break")
        #expect(parts.transport.texts(to: a1.id) == [#"{"event":"room"}"#])
        #expect(parts.transport.texts(to: a2.id) == [#"{"event":"room"}"#])
        #expect(parts.transport.texts(to: b.id).isEmpty)
    }

    /// One delivery route (issue 22): this instance's outbox is delivered here, and the same
    /// events heard back through NOTIFY are not delivered twice; another instance's are.
    @Test func anOutboxIsDeliveredHereOnceAndOtherInstancesAnnouncementsToo() {
        let parts = Parts()
        let a = parts.connect(1, as: "a"), b = parts.connect(2, as: "b")
        let outbox = Outbox()
        outbox.add(["a", "b"], #"{"event":"room","n":1}"#, topic: "room:ABCDEF")
        outbox.add(notification: "b\n" + #"{"event":"notification"}"#, announce: false)
        parts.notifications.deliver(outbox)
        #expect(parts.transport.texts(to: a.id) == [#"{"event":"room","n":1}"#])
        #expect(parts.transport.texts(to: b.id) == [#"{"event":"room","n":1}"#, #"{"event":"notification"}"#])
        // Its own announcement, heard back: skipped.
        parts.notifications.playerEventsNotified("@test 5 room:ABCDEF\na,b\n" + #"{"event":"room","n":1}"#)
        // Another instance's: delivered.
        parts.notifications.playerEventsNotified("@other 6 room:ABCDEF\na,b\n" + #"{"event":"room","n":2}"#)
        #expect(parts.transport.texts(to: a.id) == [#"{"event":"room","n":1}"#, #"{"event":"room","n":2}"#])
    }

    /// A room's state committed by another instance before this one's, heard after this one's own
    /// outbox delivered the newer state, is dropped: the player keeps the newest room.
    @Test func anOlderStateOfARoomArrivingLateIsDropped() {
        let parts = Parts()
        let a = parts.connect(1, as: "a")
        parts.notifications.playerEventsNotified("@other 9 room:ABCDEF\na\n" + #"{"n":9}"#)
        parts.notifications.playerEventsNotified("@other 7 room:ABCDEF\na\n" + #"{"n":7}"#)
        parts.notifications.playerEventsNotified("@other 8 room:GHJKMN\na\n" + #"{"n":8}"#)
        parts.notifications.playerEventsNotified("@other 9 room:ABCDEF\na\n" + #"{"n":9.1}"#)
        parts.notifications.playerEventsNotified("@other 3 -\na\n" + #"{"n":3}"#)
        #expect(parts.transport.texts(to: a.id) == [#"{"n":9}"#, #"{"n":8}"#, #"{"n":9.1}"#, #"{"n":3}"#])
    }

    @Test func aQueueEvictionTellsEachWaiterHere() {
        let parts = Parts()
        let a = parts.connect(1, as: "a"), b = parts.connect(2, as: "b")
        parts.notifications.queueEvictionsNotified("thin-bank:a,zz")
        #expect(parts.transport.texts(to: a.id).first?.contains("bank_empty") == true)
        #expect(parts.transport.texts(to: b.id).isEmpty)
        #expect(parts.metrics.errorsByCode["bank_empty"] == 1)
    }
}

@Suite struct RequestRouterPartTests {
    /// The router with parts that would need a database never reached: only refusals here.
    func router(_ parts: Parts) -> RequestRouter {
        let configuration = ServerConfiguration()
        let sessions = Sessions(
            configuration: configuration, hashing: HashingQueue(threads: 1, total: 1, perAddress: 1),
            connections: parts.connections, replies: parts.replies, jobs: parts.jobs, delivery: parts.delivery,
            notifications: parts.notifications, transport: parts.transport, metrics: parts.metrics, instance: "test")
        let games = GameRequests(
            configuration: configuration, connections: parts.connections, replies: parts.replies, jobs: parts.jobs,
            delivery: parts.delivery, notifications: parts.notifications, metrics: parts.metrics,
            queueJoins: QueueJoins(windowMs: 0, questionsNeeded: 10, instance: "test",
                                   timer: DeadlineTimer(transport: parts.transport), jobs: parts.jobs,
                                   connections: parts.connections),
            matchNow: {})
        return RequestRouter(
            sessions: sessions, games: games, delivery: parts.delivery,
            data: DataRequests(configuration: configuration, connections: parts.connections, replies: parts.replies, jobs: parts.jobs),
            replies: parts.replies, transport: parts.transport, metrics: parts.metrics)
    }

    @Test func badInputIsRefusedByCodeWithItsRef() throws {
        let parts = Parts()
        let router = router(parts)
        let anonymous = parts.connect(1, as: nil)
        anonymous.limiter = RateLimiter(perSecond: 100, burst: 100)
        router.received(anonymous, text: Array("not json".utf8))
        router.received(anonymous, text: Array(#"{"op":"history","ref":7}"#.utf8))
        router.received(anonymous, text: Array(#"{"op":"teleport","ref":8}"#.utf8))
        router.received(anonymous, text: Array(#"{"op":"login","username":"a\u0000b","password":"x","ref":9}"#.utf8))
        let replies = try parts.transport.texts(to: 1).map { try JSONParser.parse($0) }
        #expect(replies.map { $0["code"]?.string } == ["bad_json", "unauthorized", "unknown_op", "bad_request"])
        #expect(replies.map { $0["ref"] } == [.null, 7, 8, 9])
        #expect(parts.metrics.messagesReceived == 4)
    }

    @Test func aFloodIsClosed() {
        let parts = Parts()
        let router = router(parts)
        let flooder = parts.connect(1, as: "a")
        flooder.limiter = RateLimiter(perSecond: 1, burst: 1)
        for _ in 0..<200 { router.received(flooder, text: Array(#"{"op":"nope"}"#.utf8)) }
        // Refused one by one first (rate_limited), then closed for the flood (LWSServer closes once).
        #expect(parts.transport.texts(to: 1).contains { $0.contains("rate_limited") })
        #expect(!parts.transport.closed.isEmpty && parts.transport.closed.allSatisfy { $0.code == .policyViolation })
    }
}
