import DuelCore
import DuelStore
import Foundation
import Logging

/// Duel delivery: applies committed duel updates of this instance (deliver, remember, schedule),
/// sends stored events to the players' connections here each once and in seq order, fills gaps,
/// hears other instances' events (NOTIFY `duel_events`), and replays a duel on `resume`. It
/// keeps what each connection was sent of each duel (no longer on ``Connection``), and decides
/// whether a duel's events must be announced to other instances. lws thread only.
final class DuelDelivery: @unchecked Sendable {
    private let connections: ConnectionTable
    private let replies: Replies
    private let jobs: ServerJobs
    private let timer: DeadlineTimer
    private let lanes: DuelLanes
    private let metrics: Metrics
    private let logger: Logger
    /// This process's id in NOTIFY payloads: its own announcements need no delivery.
    private let instance: String
    /// What this instance knows of the duels it delivers (see ``DuelBook``).
    private(set) var book = DuelBook()
    /// Per connection, per duel: the highest seq sent, so every event reaches it once and in
    /// order; and the duels whose `resume` is being read, by request generation.
    private var sent: [UInt64: ConnectionDuels] = [:]
    /// Numbers `resume` requests, so a finished read clears only its own hold.
    private var resumeGeneration = 0
    /// The timer key that releases events held ahead of the clock (``DuelBook/ahead``).
    private static let releaseKey = "~held-events"

    struct ConnectionDuels {
        var delivered: [String: Int] = [:]
        var resuming: [String: Int] = [:]
        /// Answers whose reply waits for their question's settle (issue 26), by duel.
        var held: [String: HeldReply] = [:]
    }
    /// Lag compensation is on (issue 26): a connection in a game measures its round trip.
    private let measuresLag: Bool
    /// The duel states this instance's event reads replayed (``DuelReplays``), the lanes'.
    var replays: DuelReplays { lanes.replays }

    init(connections: ConnectionTable, replies: Replies, jobs: ServerJobs, timer: DeadlineTimer,
         lanes: DuelLanes, metrics: Metrics, instance: String, measuresLag: Bool, logger: Logger) {
        self.measuresLag = measuresLag
        self.connections = connections
        self.replies = replies
        self.jobs = jobs
        self.timer = timer
        self.lanes = lanes
        self.metrics = metrics
        self.instance = instance
        self.logger = logger
        timer.handle(Self.releaseKey) { [unowned self] in release() }
    }

    // MARK: Inputs

    /// Applies `input` to `duel` in its lane, announcing the step to other instances when
    /// ``needsAnnouncement(_:)`` says so, then `then` on the lws thread.
    func submit(
        _ input: DuelInput, to duel: String, for connection: Connection? = nil,
        then: @escaping @Sendable (Connection?, Result<DuelUpdate?, Error>) -> Void
    ) {
        jobs.duelInput(for: connection, duel: duel, input, announce: needsAnnouncement(duel), then: then)
    }

    /// Applies `input` and delivers what it caused; nothing to reply to.
    func submitAndApply(_ input: DuelInput, to duel: String) {
        submit(input, to: duel) { [self] _, result in
            if case .success(let update?) = result { apply(update) }
        }
    }

    /// Whether another instance must hear of this duel's next events (NOTIFY): unless
    /// this instance holds every player of it and none is also connected elsewhere.
    /// With two instances, a NOTIFY per batch held Postgres's global notify lock through
    /// each lane's WAL flush, so the instances' commits queued behind one another.
    func needsAnnouncement(_ duel: String) -> Bool {
        let directory = connections.directory
        return book.needsAnnouncement(duel, isLocal: directory.isLocal, shared: directory.shared)
    }

    // MARK: Committed updates

    /// Handles a committed duel transaction of this instance: deliver, remember, schedule.
    func apply(_ update: DuelUpdate) {
        if let created = update.created {
            lanes.seed(created)
            logger.debug("duel created", metadata: [
                LogKey.duel: .string(update.duelID), "players": .array(update.players.map { .string($0) })])
        }
        book.setPlayers(update.players, of: update.duelID)
        deliver(update.events, players: update.players)
        if update.finished {
            // Once, for the step that completed it (late inputs to a finished duel land here too).
            if update.events.last?.kind == .complete {
                logger.debug("duel finished", metadata: [LogKey.duel: .string(update.duelID), "seq": "\(update.seq)"])
                book.finish(update.duelID)
            } else if update.events.isEmpty {
                // Another instance finished it (an operator's end that every instance applies,
                // a deadline both swept): its `complete` is in the store. Marking the duel
                // finished here would make this instance ignore that instance's announcement,
                // and the players here would never see the end: read it instead. deliver()
                // marks the duel finished when the `complete` goes out (it is a no-op when this
                // instance already delivered it).
                readEvents([DuelNotification.Range(
                    duelID: update.duelID, firstSeq: 1, lastSeq: update.seq, players: update.players)])
            } else {
                book.finish(update.duelID)
            }
            timer.cancel(update.duelID)
        } else if let deadline = update.nextDeadlineMs, book.shouldArmTimer(update.duelID, seq: update.seq) {
            // The newest state knows the next deadline: replace what an older one armed,
            // so a question answered early does not leave a useless wake-up behind.
            timer.schedule(update.duelID, atMs: deadline, replace: true)
        }
    }

    /// Sends stored events to every local connection of `players`, each event once
    /// and in seq order. A connection that would see a gap fetches what it missed.
    func deliver(_ events: [StoredEvent], players: [PlayerID]) {
        guard let first = events.first, !book.isFinished(first.duelID) else { return }
        let now = Clock.nowMs()
        let (events, players) = due(events, players: players, nowMs: now)
        guard let last = events.last else { return }
        let duel = last.duelID
        let completes = events.contains { $0.kind == .complete }
        book.saw(duel, seq: last.seq)
        // Each event's envelope is built once; every connection queues that same text.
        var messages = [String?](repeating: nil, count: events.count)
        let seqs = events.lazy.map(\.seq)
        for player in players {
            for connection in connections.connections(of: player) {
                // A resume of this duel is being read: its replay, then a catch-up, come first.
                if sent[connection.id]?.resuming[duel] != nil { continue }
                if measuresLag { connection.probe.measure(completes ? nil : duel) }
                // A reply that waited for the settle goes before the settle's events.
                if let held = sent[connection.id]?.held[duel], let verdict = held.verdict(in: events, for: player) {
                    sent[connection.id]?.held[duel] = nil
                    send(verdict, of: held, to: connection)
                }
                let plan = DeliveryPlan(seqs: seqs, delivered: sent[connection.id]?.delivered[duel] ?? 0, completes: completes)
                for index in plan.send {
                    if messages[index] == nil { messages[index] = events[index].message(serverTimeMs: now) }
                    replies.send(connection, messages[index]!)
                }
                metrics.eventsSent += plan.send.count
                // In place (no copy of the connection's dictionary on the hot path).
                sent[connection.id, default: ConnectionDuels()].delivered[duel] = plan.delivered
                if let gap = plan.gapAfter { fillGap(connection, duel: duel, after: gap) }
            }
        }
        if completes { book.finish(duel) }
    }

    /// What of one duel's `events` is due now, with what was held of it before, and everyone
    /// it is for; the rest is held until its time (``HeldEvents``).
    private func due(_ events: [StoredEvent], players: [PlayerID], nowMs: Int64) -> (events: [StoredEvent], players: [PlayerID]) {
        let due = book.ahead.admit(events, players: players, nowMs: nowMs)
        // Only events ahead of the clock can need an earlier wake-up: what was held before is
        // already scheduled (this runs on every delivery, so no lookup when nothing is ahead).
        if events[events.count - 1].atMs > nowMs, let next = book.ahead.firstDueMs(of: events[0].duelID) {
            timer.schedule(Self.releaseKey, atMs: next)
        }
        return due
    }

    /// The timer: delivers the held events that came due, timed like a deadline (from the first
    /// one's `at_ms` to the sockets).
    private func release() {
        for (players, events) in book.ahead.popDue(nowMs: Clock.nowMs()) {
            deliver(events, players: players)
            if let first = events.first {
                metrics.deadlineLateness.observe(ms: Double(max(0, Clock.nowMs() - first.atMs)))
            }
        }
        if let next = book.ahead.nextDueMs { timer.schedule(Self.releaseKey, atMs: next) }
    }

    private func fillGap(_ connection: Connection, duel: String, after: Int) {
        jobs.database(for: connection, { [replays] db in
            try DuelRepository(db).events(duel: duel, afterSeq: after, replays: replays)
        }) { [self] connection, result in
            guard let player = connection?.player, case .success(let events) = result else { return }
            deliver(events, players: [player])
        }
    }

    // MARK: Answers waiting for the settle

    /// Holds the reply to an answer that waits for its question's settle (issue 26) until
    /// the settle's `reveal` reaches this connection. If events after the answer were already
    /// delivered (the settle was judged elsewhere and heard first), they are read again.
    func hold(_ held: HeldReply, duel: String, for connection: Connection) {
        sent[connection.id, default: ConnectionDuels()].held[duel] = held
        guard let delivered = sent[connection.id]?.delivered[duel], delivered > held.afterSeq else { return }
        jobs.database(for: connection, { [replays] db in
            try DuelRepository(db).events(duel: duel, afterSeq: held.afterSeq, replays: replays)
        }) {
            [self] connection, result in
            guard let connection, let player = connection.player, case .success(let events) = result,
                  let waiting = sent[connection.id]?.held[duel], let verdict = waiting.verdict(in: events, for: player)
            else { return }
            sent[connection.id]?.held[duel] = nil
            send(verdict, of: waiting, to: connection)
        }
    }

    private func send(_ verdict: HeldReply.Verdict, of held: HeldReply, to connection: Connection) {
        switch verdict {
        case .answered(let correct, let points):
            metrics.answerLatency.observe(ms: Double(Clock.nowMs() - held.arrivedMs))
            replies.reply(connection, held.ref, Replies.answered(correct: correct, points: points))
        case .refused(let error):
            replies.fail(connection, held.ref, error)
        }
    }

    // MARK: Other instances

    /// A NOTIFY on `duel_events` (see ``DuelNotification``), from any instance: one
    /// database read fetches what this instance has not delivered of the duels whose
    /// players it holds (``DuelBook/wanted(_:isLocal:)``). One read per notification, not
    /// per duel: another instance's batch names many duels.
    func duelEventsNotified(_ payload: String) {
        guard let notification = DuelNotification(payload: payload), notification.origin != instance else { return }
        readEvents(notification.ranges)
    }

    /// Events up to each `lastSeq` exist for these duels (a notification, or a resynchronization).
    func readEvents(_ ranges: [DuelNotification.Range]) {
        let wanted = book.wanted(ranges, isLocal: connections.directory.isLocal)
        guard !wanted.isEmpty else { return }
        let reads = wanted
        let announced = Dictionary(ranges.map { ($0.duelID, $0.lastSeq) }, uniquingKeysWith: max)
        jobs.database(for: nil, { [replays] db in
            let repository = DuelRepository(db)
            var found = try repository.events(after: reads, replays: replays)
            // On Citus, a commit that wrote several shards (a game's completion) makes its rows
            // on the workers visible just after the coordinator's own commit, and the NOTIFY is
            // delivered at the latter: read again, briefly, until the announced events are there.
            // On plain Postgres the first read always has them (NOTIFY follows the commit).
            var attempts = 0
            while attempts < 20, reads.contains(where: { (found[$0.duelID]?.events.last?.seq ?? $0.afterSeq) < (announced[$0.duelID] ?? 0) }) {
                usleep(10_000)
                found = try repository.events(after: reads, replays: replays)
                attempts += 1
            }
            return found
        }) { [self] _, result in
            guard case .success(let found) = result else { return }
            for (duel, entry) in found {
                book.setPlayers(entry.players, of: duel)
                // Events from seq 1 when this instance never saw the duel: a new duel of a player held here.
                deliver(entry.events, players: entry.players)
            }
        }
    }

    /// After the LISTEN connection came back: reads what this player's connections missed of
    /// their live duel (up to its last seq, `seq`).
    func resynchronize(_ player: PlayerID, duel: String, seq: Int) {
        for connection in connections.connections(of: player) {
            let delivered = sent[connection.id]?.delivered[duel] ?? 0
            if delivered < seq {
                // Naming the local player makes the duel relevant even if its `init`
                // announcement was missed; the read brings its full player list.
                readEvents([DuelNotification.Range(
                    duelID: duel, firstSeq: delivered + 1, lastSeq: seq, players: [player])])
            }
        }
    }

    // MARK: Connections

    /// A sign-in found the player's live duel with its newest events (``DuelRepository/liveDuel(player:)``):
    /// its events continue from the latest one due, which this returns (the reply shows its
    /// record); one still ahead of the clock is held for the player until its time. Nil when
    /// none is due yet (another instance's clock ahead of this one's): all are held, and the
    /// first delivery reads what came before them.
    func signedIn(_ connection: Connection, live newest: [StoredEvent]) -> StoredEvent? {
        guard let player = connection.player else { return nil }
        let (due, later) = HeldEvents.split(newest, nowMs: Clock.nowMs())
        if !later.isEmpty { hold(Array(later), for: player) }
        guard let live = due.last else { return nil }
        let delivered = sent[connection.id]?.delivered[live.duelID] ?? 0
        sent[connection.id, default: ConnectionDuels()].delivered[live.duelID] = max(delivered, live.seq)
        book.saw(live.duelID, seq: live.seq)
        return live
    }

    /// Holds one duel's events that are all still ahead of the clock, for `player`'s connections.
    private func hold(_ later: [StoredEvent], for player: PlayerID) {
        book.ahead.hold(later, players: [player])
        timer.schedule(Self.releaseKey, atMs: later[0].atMs)
    }

    /// The connection no longer speaks for a player (logout): it starts from nothing.
    func forget(_ connection: Connection) {
        sent[connection.id]?.delivered = [:]
    }

    func closed(_ connection: Connection) {
        sent[connection.id] = nil
    }

    // MARK: Resume

    /// Replays the duel's events after `afterSeq`. While the replay is read, live events
    /// of that duel are held back from this connection (``deliver(_:players:)`` skips it);
    /// whatever was committed meanwhile follows the replay, so the connection sees the
    /// duel's events strictly increasing and gap-free from `afterSeq + 1`.
    func resume(_ connection: Connection, _ ref: RequestRef?, duel: String, afterSeq: Int) {
        let player = connection.player!
        resumeGeneration += 1
        let generation = resumeGeneration
        sent[connection.id, default: ConnectionDuels()].resuming[duel] = generation
        jobs.database(for: connection, { [replays] db -> [StoredEvent]? in
            guard let players = try DuelRepository(db).duelPlayers(id: duel) else { return nil }
            guard players.contains(player) else { throw StoreError(.notInDuel) }
            return try DuelRepository(db).events(duel: duel, afterSeq: afterSeq, replays: replays)
        }) { [self] connection, result in
            guard let connection else { return }
            let current = sent[connection.id]?.resuming[duel] == generation
            if current { sent[connection.id]?.resuming[duel] = nil }
            switch result {
            case .success(nil): replies.fail(connection, ref, ProtocolError(.unknownDuel))
            case .success(let stored?):
                replies.reply(connection, ref)
                // Exactly the events after `after_seq`, in order, even ones delivered before;
                // those still ahead of the clock at their time.
                let now = Clock.nowMs()
                let (events, later) = HeldEvents.split(stored, nowMs: now)
                if !later.isEmpty { hold(Array(later), for: player) }
                for event in events {
                    replies.send(connection, event.message(serverTimeMs: now))
                    metrics.eventsSent += 1
                }
                let delivered = events.last?.seq ?? afterSeq
                sent[connection.id, default: ConnectionDuels()].delivered[duel] = delivered
                guard current, events.last?.kind != .complete else { return }
                if book.isFinished(duel) || (book.seenSeq(duel) ?? 0) > delivered {
                    catchUp(connection, duel: duel, after: delivered)
                }
            case .failure(let error): replies.fail(connection, ref, replies.protocolError(error, on: connection))
            }
        }
    }

    /// Sends a connection the events of `duel` after `after` that it missed while a resume
    /// held its live events back (the duel may have finished meanwhile, so this does not
    /// go through ``deliver(_:players:)``, which ignores finished duels).
    private func catchUp(_ connection: Connection, duel: String, after: Int) {
        jobs.database(for: connection, { [replays] db in
            try DuelRepository(db).events(duel: duel, afterSeq: after, replays: replays)
        }) { [self] connection, result in
            guard let connection, let player = connection.player, case .success(let stored) = result else { return }
            let now = Clock.nowMs()
            let (events, later) = HeldEvents.split(stored, nowMs: now)
            if !later.isEmpty { hold(Array(later), for: player) }
            var delivered = sent[connection.id]?.delivered[duel] ?? after
            for event in events where event.seq == delivered + 1 {
                replies.send(connection, event.message(serverTimeMs: now))
                metrics.eventsSent += 1
                delivered = event.seq
            }
            sent[connection.id, default: ConnectionDuels()].delivered[duel] = delivered
        }
    }
}
