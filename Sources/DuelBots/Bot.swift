import DuelClient
import DuelCore
import Foundation

/// One load-test bot: signs in, finds a game, plays it by the rules, finds the next, and
/// checks the rules as it plays (gap-free seq, nothing hidden before a reveal, scores
/// matching the reveals). Every broken rule counts as a violation.
///
/// A bot is a state machine driven on its client loop's thread: frames, timers
/// (ramp-up, think time, request timeouts, the run's end) and the fleet's stop
/// signal all arrive there as calls. An earlier version ran each bot as a Task
/// awaiting every frame, and the Task wake-ups, continuations and timeout
/// timers cost more CPU per answer than the frames themselves. Everything here
/// is touched only on the loop's thread (hence `@unchecked Sendable`).
///
/// This class is that state machine and nothing else: it owns the phase, the connection and
/// every timer, hands each frame to the part whose job it is, and moves between phases on
/// what the part says. The parts are values it keeps:
/// - ``BotSession``: sign-up or `auth`, and the token for signing in again after a drop;
/// - ``GameFinder``: the queue, rooms and practice, and the share of `--duels` held;
/// - ``BotPlayer``: answering, the latencies, and the rule checks (``DuelRules``, pure);
/// - ``BotConnection``: the client, the request bytes, the requests awaiting a reply.
/// They neither send nor schedule: a timer's closure must capture an object that outlives
/// it, and the bot is the one object here, so every closure captures the bot alone (as
/// before the split: one closure per timer, none stored per duel).
///
/// This file has the lifecycle (start, stop, finish, reconnect), the requests and their
/// timeouts, the frame routing and the sign-in; `Bot+Games.swift` has the game phases. The
/// members both use are internal for that alone: only the bot's own files touch them.
final class Bot: DuelClientHandler, @unchecked Sendable {
    let index: Int
    let loop: ClientLoop
    let configuration: BotConfiguration
    let stats: BotStats
    let run: BotRun
    var phase = Phase.notStarted
    /// The phase to go back to once a reconnection has signed in.
    private var reopening: Phase?
    var connection = BotConnection()
    /// The frame being handled, reused for every frame (``BotFrame``).
    var frame = BotFrame()
    private var session: BotSession
    var finder: GameFinder
    var player: BotPlayer

    enum Phase {
        case notStarted, connecting, loggingIn, waitingForLeftover, backingOff
        /// Logged in and staying idle (the connections scenario).
        case parked
        /// Queued (or queueing, or waiting for a room's game): waiting for `init`.
        case matching(queuedAt: UInt64)
        case playing
        /// A last cancel or forfeit is on its way; the bot finishes on its reply.
        case leaving
        case done
    }

    init(index: Int, configuration: BotConfiguration, stats: BotStats, loop: ClientLoop, run: BotRun, rooms: RoomBoard) {
        self.index = index
        self.loop = loop
        self.configuration = configuration
        self.stats = stats
        self.run = run
        session = BotSession(index: index, configuration: configuration)
        finder = GameFinder(index: index, configuration: configuration, tally: stats.tally, rooms: rooms)
        player = BotPlayer(
            style: configuration.play, seats: configuration.roomSize ?? 2, listsAcknowledged: configuration.reconnect,
            stats: stats, delayMs: configuration.isFar(index) ? configuration.farDelayMs : 0,
            withFarPlayers: configuration.farDelayMs > 0)
    }

    // MARK: Driving (loop thread)

    /// Connects (after its ramp-up delay).
    func start() {
        guard case .notStarted = phase else { return }
        if run.isOver { return finish() }
        guard connect() else {
            stats.error("connect_failed")
            return finish()
        }
        loop.schedule(afterMicros: 10_000_000) { [self] in
            if case .connecting = phase {
                stats.error("connect_failed")
                finish()
            }
        }
        loop.schedule(afterMicros: run.deadline - min(run.deadline, nowMicros())) { [self] in runEnded() }
    }

    /// The fleet reached its duel count: leave now, as at the run's end (see ``DuelTally``).
    func stop() { runEnded() }

    /// A new connection; `clientDidOpen` signs in on it.
    private func connect() -> Bool {
        guard connection.open(url: configuration.isFar(index) ? run.farURL ?? configuration.url : configuration.url,
                              loop: loop, handler: self) else { return false }
        phase = .connecting
        return true
    }

    /// The run is over (its deadline, or the fleet's duel count): leave the queue, duel or room
    /// the bot is in, so that nobody is left waiting for it, and finish on the reply.
    private func runEnded() {
        // A game still played is reported, in a room too (``BotStats/unfinished(duel:lastSeq:answeredIndex:silentMicros:)``).
        if case .playing = phase, let duel = player.duel {
            stats.unfinished(duel: String(decoding: duel.id, as: UTF8.self), lastSeq: duel.rules.lastSeq,
                             answeredIndex: duel.answeredIndex, silentMicros: nowMicros() - min(duel.lastFrameAt, nowMicros()))
        }
        // A bot in a room leaves it (forfeiting a live game of it), or the next run's bots
        // with the same accounts would find themselves members (`in_room` on every queue).
        if finder.roomCode != nil, !isDone { return leaveRoomAtEnd() }
        switch phase {
        case .notStarted, .connecting, .loggingIn, .waitingForLeftover, .parked, .backingOff: finish()
        case .matching:
            stats.update { $0.gauges.waiting -= 1 }
            phase = .leaving
            let ref = reserveRef(.cancel, timeoutMicros: 5_000_000)
            connection.writer.cancel(ref: ref)
            connection.sendWritten()
        case .playing:
            // Give the duel up so the opponent is not left waiting for deadlines.
            guard let duel = player.leave() else { return finish() }
            phase = .leaving
            let ref = reserveRef(.forfeitAtEnd, timeoutMicros: 5_000_000)
            connection.writer.forfeit(ref: ref, duelID: duel.id)
            connection.sendWritten()
        case .leaving, .done: break
        }
    }

    private var isDone: Bool {
        if case .done = phase { return true }
        if case .leaving = phase { return true }
        return false
    }

    private func leaveRoomAtEnd() {
        switch phase {
        case .matching: stats.update { $0.gauges.waiting -= 1 }
        case .playing: player.leave()
        default: break
        }
        phase = .leaving
        let ref = reserveRef(.cancel, timeoutMicros: 5_000_000)
        connection.send(GameFinder.RoomRequest.leave.json(ref: ref, bank: finder.bank))
    }

    /// Done for good (once): leaves the gauges, gives back its share, closes, tells the fleet.
    func finish() {
        if case .done = phase { return }
        switch phase {
        case .matching: stats.update { $0.gauges.waiting -= 1 }
        case .playing: player.leave()
        default: break
        }
        phase = .done
        connection.forgetRequests()
        finder.releaseShare()
        if connection.isCounted { stats.update { $0.gauges.connected -= 1 } }
        connection.close()
        run.finished()
    }

    /// The connection dropped (drills): open a new one; `clientDidOpen` signs in with the
    /// token and `loginReplied` resumes the duel or queues again.
    private func reconnect() {
        stats.update { $0.reconnects += 1 }
        connection.forgetRequests()
        player.resuming = false
        if connection.isCounted { stats.update { $0.gauges.connected -= 1 } }
        connection.isCounted = false
        if reopening == nil { reopening = phase }
        loop.schedule(afterMicros: UInt64.random(in: 200_000...1_000_000)) { [self] in
            guard !run.isOver else { return finish() }
            guard connect() else { return reconnect() }
            loop.schedule(afterMicros: 10_000_000) { [self] in
                if case .connecting = phase { connection.close() }
            }
        }
    }

    // MARK: Requests

    /// Keeps `request` until its reply, or until `timeoutMicros` pass without one.
    func reserveRef(_ request: BotRequest, timeoutMicros: UInt64) -> Int {
        let ref = connection.add(request)
        loop.schedule(afterMicros: timeoutMicros) { [self] in
            if let request = connection.take(ref) { timedOut(request) }
        }
        return ref
    }

    /// A request with no reply in time (or none at all, the connection having closed).
    private func timedOut(_ request: BotRequest) {
        switch request {
        case .resume:
            player.resuming = false
        case .login:
            stats.error("login_failed")
            finish()
        case .forfeitLeftover: loggedIn()
        case .room:
            stats.error("room_failed")
            finder.roomRefused()
            if case .matching = phase { retryRoom() }
        case .queue:
            stats.error("queue_failed")
            if case .matching = phase {
                stats.update { $0.gauges.waiting -= 1 }
                phase = .backingOff
                nextDuel()
            }
        case .cancel, .forfeitAtEnd: finish()
        case .answer(_, let serial, _):
            // As before: a lost answer reply gives the duel up quietly and queues again.
            if player.duel?.serial == serial {
                player.leave()
                phase = .backingOff
                nextDuel()
            }
        }
    }

    // MARK: DuelClientHandler

    func clientDidOpen(_ client: DuelClient) {
        guard case .connecting = phase else { return client.closeFromLoop() }
        connection.isCounted = true
        stats.update { $0.gauges.connected += 1 }
        signIn()
    }

    private func signIn() {
        phase = .loggingIn
        let ref = reserveRef(.login, timeoutMicros: 120_000_000)
        connection.send(session.request(ref: ref))
    }

    func client(_ client: DuelClient, didCloseWithCode code: UInt16?) {
        if configuration.reconnect, session.token != nil, !run.isOver {
            switch phase {
            case .done, .leaving, .notStarted: break
            default: return reconnect()
            }
        }
        switch phase {
        case .done: return
        case .connecting: stats.error("connect_failed")
        case .loggingIn: stats.error("login_failed")
        case .matching where connection.awaitsQueueReply: stats.error("queue_failed")
        // A duel cut off by the connection closing counted as a duel that timed out.
        case .playing: stats.error("duel_timeout")
        default: break
        }
        finish()
    }

    func client(_ client: DuelClient, didReceive bytes: UnsafeRawBufferPointer, receivedAtMicros: UInt64) {
        if case .done = phase { return }
        guard frame.read(bytes) else { return }
        switch frame.op {
        case .reply, .error:
            let request = connection.take(frame.ref)
            if frame.op == .error { stats.refused(frame.code ?? "error", expected: request?.expects(frame.code ?? "") ?? false) }
            if let request { replied(request, bytes) }
        case .event:
            if case .matching(let queuedAt) = phase, frame.event == .`init`, let range = frame.duelIDRange {
                matched(duelID: Array(bytes[range]), queuedAt: queuedAt)
            } else if case .playing = phase, player.plays(frame.duelID), let seq = frame.seq {
                duelEvent(seq: seq, receivedAt: receivedAtMicros)
            } else if frame.event == .other, configuration.roomSize ?? 0 > 1 {
                if finder.read(roomEvent: bytes) { startIfFull() }
            }
        case .other:
            break
        }
    }

    // MARK: Replies

    private func replied(_ request: BotRequest, _ bytes: UnsafeRawBufferPointer) {
        switch request {
        case .login: loginReplied(bytes)
        case .resume: player.resuming = false
        case .forfeitLeftover: loggedIn()
        case .room: roomReplied(bytes)
        case .queue: queueReplied()
        case .cancel, .forfeitAtEnd: finish()
        case .answer(let sentAt, let serial, let index):
            player.answerReplied(sentAt: sentAt, serial: serial, index: index, ok: frame.ok)
        }
    }

    /// The sign-in reply: the player id, and any leftover duel.
    private func loginReplied(_ bytes: UnsafeRawBufferPointer) {
        if let back = reopening, frame.ok {
            phase = back
            reopening = nil
        } else if reopening != nil {
            // Signing in again failed (the database may be down): try again shortly.
            return connection.close()
        }
        // The server's password-hashing queue is full (many signups from one address):
        // try again shortly, as a client should, instead of giving up.
        if frame.code == "rate_limited", session.signsUp, nowMicros() < run.deadline {
            loop.schedule(afterMicros: UInt64.random(in: 200_000...600_000)) { [self] in
                if case .loggingIn = phase, connection.isOpen { signIn() }
            }
            return
        }
        guard let login = session.read(reply: bytes) else {
            if frame.op != .error { stats.error("login_failed") }  // a refusal counted by its code
            return finish()
        }
        player.signedIn(as: login.player)
        // Signed in again after a drop, in a duel: replay it from the last seq seen.
        if configuration.reconnect, case .playing = phase, player.duel != nil {
            player.resuming = true
            let ref = reserveRef(.resume, timeoutMicros: 30_000_000)
            if let resume = player.resumeRequest(ref: ref) { connection.send(resume) }
            return
        }
        if configuration.reconnect, case .matching = phase {
            // The queue entry went with the last connection: queue again.
            stats.update { $0.gauges.waiting -= 1 }
            return nextDuel()
        }
        // A duel left over from an earlier run (same token) would block queueing: give it up.
        if let leftover = login.leftoverDuel {
            phase = .waitingForLeftover
            let ref = reserveRef(.forfeitLeftover, timeoutMicros: 30_000_000)
            connection.send(.object(["op": "forfeit", "ref": .number(ref), "duel_id": .string(leftover)]))
            return
        }
        loggedIn()
    }

    private func loggedIn() {
        if configuration.idle {
            phase = .parked
            if run.shouldStop() { finish() }
            return
        }
        nextDuel()
    }
}
