import DuelClient
import DuelCore
import Foundation

/// One load-test bot: logs in, queues, plays by the rules, queues again, and
/// checks the rules as it plays (gap-free seq, nothing hidden before a reveal,
/// scores matching the reveals). Every broken rule counts as a violation.
///
/// A bot is a state machine driven on its client loop's thread: frames, timers
/// (ramp-up, think time, request timeouts, the run's end) and the fleet's stop
/// signal all arrive there as calls. An earlier version ran each bot as a Task
/// awaiting every frame, and the Task wake-ups, continuations and timeout
/// timers cost more CPU per answer than the frames themselves. Everything here
/// is touched only on the loop's thread (hence `@unchecked Sendable`).
final class Bot: DuelClientHandler, @unchecked Sendable {
    let index: Int
    let configuration: BotConfiguration
    let stats: BotStats
    let loop: ClientLoop
    private let deadline: UInt64
    private let shouldStop: @Sendable () -> Bool
    private let finished: @Sendable () -> Void
    private let rooms: RoomBoard

    private typealias Request = BotRequest

    private enum Phase {
        case notStarted, connecting, loggingIn, waitingForLeftover, backingOff
        /// Logged in and staying idle (the connections scenario).
        case parked
        /// Queued (or queueing): waiting for `init`.
        case matching(queuedAt: UInt64)
        case playing
        /// A last cancel or forfeit is on its way; the bot finishes on its reply.
        case leaving
        case done
    }

    private var phase = Phase.notStarted
    private var client: DuelClient?
    private var connectedCounted = false
    private var frame = BotFrame()
    private var writer = RequestWriter()
    private let bankJSON: [UInt8]
    private var me = (id: "", hash: UInt64(0))
    private var nextRef = 0
    private var pending: [Int: Request] = [:]
    /// The duel being played, if any; `serial` tells a stale timer from a current one.
    private var duel: DuelState?
    private var duelSerial = 0
    /// The session token (given, or from signup), for signing in again after a drop.
    private var token: String?
    /// A `resume` is on its way: the duel's events before its reply are dropped (the
    /// replay that follows it starts right after the last seq this bot saw).
    private var resuming = false
    /// With `--room-size`: the room's code once known, and its member count from `room` events.
    private var roomCode: String?
    private var roomMembers = 0
    /// The host waits for every member before the first start.
    private var startWanted = false
    /// This bot's share of the duel it waits for or plays, in halves (see ``DuelTally``).
    private var held = 0

    /// What a bot tracks about the duel it plays, for the rule checks and latencies.
    private struct DuelState {
        let id: [UInt8]
        let hash: UInt64
        let serial: Int
        var lastSeq = 1
        var answeredIndex = -1
        var lastFrameAt: UInt64
        /// Question indexes whose opponent answer was already timed.
        var opponentAnswersSeen = Set<Int>()
        var pointsFromReveals: [(player: UInt64, points: Int)] = []
    }

    /// A duel with no frame for this long is given up (`duel_timeout`).
    private static let duelSilenceMicros: UInt64 = 60_000_000

    init(
        index: Int, configuration: BotConfiguration, stats: BotStats, loop: ClientLoop, deadline: UInt64, rooms: RoomBoard,
        shouldStop: @escaping @Sendable () -> Bool, finished: @escaping @Sendable () -> Void
    ) {
        self.rooms = rooms
        self.index = index
        self.configuration = configuration
        self.stats = stats
        self.loop = loop
        self.deadline = deadline
        self.shouldStop = shouldStop
        self.finished = finished
        bankJSON = Array(JSONValue.string(configuration.bank).serialized.utf8)
    }

    // MARK: Driving (loop thread)

    /// Connects (after its ramp-up delay).
    func start() {
        guard case .notStarted = phase else { return }
        if nowMicros() >= deadline || shouldStop() { return finish() }
        do {
            client = try DuelClient(url: configuration.url, loop: loop, handler: self)
        } catch {
            stats.error("connect_failed")
            return finish()
        }
        phase = .connecting
        client?.open()
        loop.schedule(afterMicros: 10_000_000) { [self] in
            if case .connecting = phase {
                stats.error("connect_failed")
                finish()
            }
        }
        loop.schedule(afterMicros: deadline - min(deadline, nowMicros())) { [self] in runEnded() }
    }

    /// The fleet reached its duel count: leave now, as at the run's end (see ``DuelTally``).
    func stop() { runEnded() }

    private func runEnded() {
        // A bot in a room leaves it (forfeiting a live game of it), or the next run's bots
        // with the same accounts would find themselves members (`in_room` on every queue).
        if roomCode != nil, !isDone { return leaveRoomAtEnd() }
        switch phase {
        case .notStarted, .connecting, .loggingIn, .waitingForLeftover, .parked, .backingOff: finish()
        case .matching: leaveQueue()
        case .playing:
            // Give the duel up so the opponent is not left waiting for deadlines.
            guard let duel = leaveDuel() else { return finish() }
            phase = .leaving
            let ref = reserveRef(.forfeitAtEnd, timeoutMicros: 5_000_000)
            writer.forfeit(ref: ref, duelID: duel.id)
            send()
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
        case .matching: stats.update { $0.waiting -= 1 }
        case .playing: leaveDuel()
        default: break
        }
        phase = .leaving
        let ref = reserveRef(.cancel, timeoutMicros: 5_000_000)
        sendJSON(.object(["op": "room_leave", "ref": .number(ref)]))
    }

    private func leaveQueue() {
        stats.update { $0.waiting -= 1 }
        phase = .leaving
        let ref = reserveRef(.cancel, timeoutMicros: 5_000_000)
        writer.cancel(ref: ref)
        send()
    }

    private func finish() {
        if case .done = phase { return }
        switch phase {
        case .matching: stats.update { $0.waiting -= 1 }
        case .playing: leaveDuel()
        default: break
        }
        phase = .done
        pending.removeAll()
        stats.tally.release(halves: held)
        if connectedCounted { stats.update { $0.connected -= 1 } }
        client?.closeFromLoop()
        finished()
    }

    /// The connection dropped (drills): open a new one; `clientDidOpen` signs in with the
    /// token and `loginReplied` resumes the duel or queues again.
    private func reconnect() {
        stats.update { $0.reconnects += 1 }
        pending.removeAll()
        resuming = false
        if connectedCounted { stats.update { $0.connected -= 1 } }
        connectedCounted = false
        if reopening == nil { reopening = phase }
        loop.schedule(afterMicros: UInt64.random(in: 200_000...1_000_000)) { [self] in
            guard nowMicros() < deadline, !shouldStop() else { return finish() }
            do {
                client = try DuelClient(url: configuration.url, loop: loop, handler: self)
            } catch {
                return reconnect()
            }
            phase = .connecting
            client?.open()
            loop.schedule(afterMicros: 10_000_000) { [self] in
                if case .connecting = phase { client?.closeFromLoop() }
            }
        }
    }

    /// The phase to go back to once a reconnection has signed in.
    private var reopening: Phase?

    // MARK: Requests

    private func reserveRef(_ request: Request, timeoutMicros: UInt64) -> Int {
        nextRef += 1
        let ref = nextRef
        pending[ref] = request
        loop.schedule(afterMicros: timeoutMicros) { [self] in
            if let request = pending.removeValue(forKey: ref) { timedOut(request) }
        }
        return ref
    }

    private func send() {
        writer.bytes.withUnsafeBytes { client?.sendFromLoop($0) }
    }

    private func sendJSON(_ message: JSONValue) {
        Array(message.serialized.utf8).withUnsafeBytes { client?.sendFromLoop($0) }
    }

    /// A request with no reply in time (or none at all, the connection having closed).
    private func timedOut(_ request: Request) {
        switch request {
        case .resume:
            resuming = false
        case .login:
            stats.error("login_failed")
            finish()
        case .forfeitLeftover: loggedIn()
        case .room:
            stats.error("room_failed")
            if !isHost { roomCode = nil }
            if case .matching = phase { retryRoom() }
        case .queue:
            stats.error("queue_failed")
            if case .matching = phase {
                stats.update { $0.waiting -= 1 }
                phase = .backingOff
                nextDuel()
            }
        case .cancel, .forfeitAtEnd: finish()
        case .answer(_, let serial, _):
            // As before: a lost answer reply gives the duel up quietly and queues again.
            if duel?.serial == serial {
                leaveDuel()
                phase = .backingOff
                nextDuel()
            }
        }
    }

    // MARK: DuelClientHandler

    func clientDidOpen(_ client: DuelClient) {
        guard case .connecting = phase else { return client.closeFromLoop() }
        connectedCounted = true
        stats.update { $0.connected += 1 }
        signIn()
    }

    private func signIn() {
        phase = .loggingIn
        let ref = reserveRef(.login, timeoutMicros: 120_000_000)
        if let token = token ?? (index < configuration.tokens.count ? configuration.tokens[index] : nil) {
            sendJSON(.object(["op": "auth", "ref": .number(ref), "token": .string(token)]))
        } else {
            let name = "bot-\(configuration.runID)-\(index)"
            sendJSON(.object([
                "op": "signup", "ref": .number(ref), "username": .string(name), "password": "bot password 123",
            ]))
        }
    }

    func client(_ client: DuelClient, didCloseWithCode code: UInt16?) {
        if configuration.reconnect, token != nil, nowMicros() < deadline, !shouldStop() {
            switch phase {
            case .done, .leaving, .notStarted: break
            default: return reconnect()
            }
        }
        switch phase {
        case .done: return
        case .connecting: stats.error("connect_failed")
        case .loggingIn: stats.error("login_failed")
        case .matching where pending.values.contains(where: { if case .queue = $0 { true } else { false } }):
            stats.error("queue_failed")
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
            let request = frame.ref.flatMap { pending.removeValue(forKey: $0) }
            if frame.op == .error { stats.refused(frame.code ?? "error", expected: request?.expects(frame.code ?? "") ?? false) }
            if let request { replied(request, bytes) }
        case .event:
            if case .matching(let queuedAt) = phase, frame.event == .`init`, let range = frame.duelIDRange {
                matched(duelID: Array(bytes[range]), queuedAt: queuedAt)
            } else if case .playing = phase, let duel, frame.duelID == duel.hash, let seq = frame.seq {
                duelEvent(seq: seq, receivedAt: receivedAtMicros)
            } else if frame.event == .other, configuration.roomSize ?? 0 > 1 {
                roomEvent(bytes)
            }
        case .other:
            break
        }
    }

    // MARK: Replies

    private func replied(_ request: Request, _ bytes: UnsafeRawBufferPointer) {
        switch request {
        case .login: loginReplied(bytes)
        case .resume: resuming = false
        case .forfeitLeftover: loggedIn()
        case .room: roomReplied(bytes)
        case .queue: queueReplied()
        case .cancel, .forfeitAtEnd: finish()
        case .answer(let sentAt, let serial, let index):
            let now = nowMicros()
            let acknowledged = configuration.reconnect && frame.ok && duel?.serial == serial
                ? duel.map { String(decoding: $0.id, as: UTF8.self) + ":\(index)" } : nil
            stats.update {
                $0.answerToReply.record(now - min(sentAt, now))
                $0.answers += 1
                if let acknowledged { $0.acknowledged.append(acknowledged) }
            }
        }
    }

    /// The login reply is read in full, once per bot: it has the player id and any leftover duel.
    private func loginReplied(_ bytes: UnsafeRawBufferPointer) {
        if let back = reopening, frame.ok {
            phase = back
            reopening = nil
        } else if reopening != nil {
            // Signing in again failed (the database may be down): try again shortly.
            return client?.closeFromLoop() ?? ()
        }
        // The server's password-hashing queue is full (many signups from one address):
        // try again shortly, as a client should, instead of giving up.
        if frame.code == "rate_limited", index >= configuration.tokens.count, nowMicros() < deadline {
            loop.schedule(afterMicros: UInt64.random(in: 200_000...600_000)) { [self] in
                if case .loggingIn = phase, client?.isClosed == false { signIn() }
            }
            return
        }
        guard let login = try? JSONParser.parse(bytes), let id = login["data"]?["player"]?["id"]?.string else {
            if frame.op != .error { stats.error("login_failed") }  // a refusal counted by its code
            return finish()
        }
        me = (id, Array(id.utf8).withUnsafeBytes { $0.fnv1a })
        if let given = login["data"]?["token"]?.string { token = given }
        if token == nil, index < configuration.tokens.count { token = configuration.tokens[index] }
        // Signed in again after a drop, in a duel: replay it from the last seq seen.
        if configuration.reconnect, case .playing = phase, let duel {
            resuming = true
            let ref = reserveRef(.resume, timeoutMicros: 30_000_000)
            sendJSON(.object(["op": "resume", "ref": .number(ref),
                              "duel_id": .string(String(decoding: duel.id, as: UTF8.self)), "after_seq": .number(duel.lastSeq)]))
            return
        }
        if configuration.reconnect, case .matching = phase {
            // The queue entry went with the last connection: queue again.
            stats.update { $0.waiting -= 1 }
            return nextDuel()
        }
        // A duel left over from an earlier run (same token) would block queueing: give it up.
        if let leftover = login["data"]?["duel"]?["id"]?.string {
            phase = .waitingForLeftover
            let ref = reserveRef(.forfeitLeftover, timeoutMicros: 30_000_000)
            sendJSON(.object(["op": "forfeit", "ref": .number(ref), "duel_id": .string(leftover)]))
            return
        }
        loggedIn()
    }

    private func loggedIn() {
        if configuration.idle {
            phase = .parked
            if shouldStop() { finish() }
            return
        }
        nextDuel()
    }

    private func nextDuel() {
        if nowMicros() >= deadline || shouldStop() || client?.isClosed != false { return finish() }
        stats.tally.release(halves: held)
        // A room's other members need no share: they must be waiting whenever the host starts.
        let share = configuration.roomSize == nil ? 1 : isHost ? 2 : 0
        held = share == 0 || stats.tally.reserve(halves: share) ? share : 0
        if held != share {  // the duels still needed are spoken for: wait for a share to free up
            phase = .backingOff
            return loop.schedule(afterMicros: 100_000) { [self] in if case .backingOff = phase { nextDuel() } }
        }
        stats.update { $0.waiting += 1 }
        phase = .matching(queuedAt: nowMicros())
        if configuration.roomSize != nil { return nextRoomGame() }
        let ref = reserveRef(.queue, timeoutMicros: 30_000_000)
        writer.queue(ref: ref, bankJSON: bankJSON)
        send()
    }

    // MARK: Rooms and practice (`--room-size`)

    private var roomSize: Int { configuration.roomSize ?? 2 }
    private var roomGroup: Int { index / roomSize }
    private var isHost: Bool { index % roomSize == 0 }
    /// Members of this bot's room: the last room of the fleet may be short.
    private var groupSize: Int { min(roomSize, configuration.bots - roomGroup * roomSize) }

    /// Waiting for a game (phase `matching`): practice alone; else the host creates the room
    /// or starts its next game, and the others join it once, then wait for each `init`.
    private func nextRoomGame() {
        if groupSize == 1 {
            let ref = reserveRef(.room, timeoutMicros: 30_000_000)
            return sendJSON(.object(["op": "practice", "ref": .number(ref), "bank": .string(configuration.bank)]))
        }
        if isHost {
            if roomCode == nil {
                let ref = reserveRef(.room, timeoutMicros: 30_000_000)
                sendJSON(.object(["op": "room_create", "ref": .number(ref), "bank": .string(configuration.bank)]))
            } else {
                startWanted = true
                startIfFull()
            }
        } else if roomCode == nil {
            guard let code = rooms.code(group: roomGroup) else {
                return loop.schedule(afterMicros: 50_000) { [self] in
                    if case .matching = phase { nextRoomGame() }
                }
            }
            roomCode = code
            let ref = reserveRef(.room, timeoutMicros: 30_000_000)
            sendJSON(.object(["op": "room_join", "ref": .number(ref), "code": .string(code)]))
        }
    }

    private func startIfFull() {
        guard startWanted, roomMembers >= groupSize, case .matching = phase else { return }
        startWanted = false
        let ref = reserveRef(.room, timeoutMicros: 30_000_000)
        sendJSON(.object(["op": "room_start", "ref": .number(ref)]))
    }

    private func roomReplied(_ bytes: UnsafeRawBufferPointer) {
        guard frame.ok else {
            // A refused join is tried again from the board (the code may be stale).
            if !isHost { roomCode = nil }
            if case .matching = phase { retryRoom() }
            return
        }
        guard let reply = try? JSONParser.parse(bytes), let room = reply["data"]?["room"] else { return }
        if case .array(let members)? = room["members"] { roomMembers = max(roomMembers, members.count) }
        if isHost, roomCode == nil, let code = room["code"]?.string {
            roomCode = code
            rooms.post(group: roomGroup, code: code)
            startWanted = true
            startIfFull()
        }
    }

    /// A refused room request: try again shortly (a start may race the last game's end).
    private func retryRoom() {
        if isHost, roomCode != nil { startWanted = true }
        loop.schedule(afterMicros: 200_000) { [self] in
            if case .matching = phase { isHost && roomCode != nil ? startIfFull() : nextRoomGame() }
        }
    }

    /// A `room` event: the host starts once every member is in.
    private func roomEvent(_ bytes: UnsafeRawBufferPointer) {
        guard let event = try? JSONParser.parse(bytes), event["event"] == "room",
              case .array(let members)? = event["record"]?["members"] else { return }
        roomMembers = members.count
        if isHost { startIfFull() }
    }

    private func queueReplied() {
        // Only a refusal while still unmatched matters (an `init` may have come first).
        guard !frame.ok, case .matching = phase else { return }
        stats.update { $0.waiting -= 1 }
        phase = .backingOff
        loop.schedule(afterMicros: 200_000) { [self] in
            if case .backingOff = phase { nextDuel() }
        }
    }

    // MARK: Playing

    private func matched(duelID: [UInt8], queuedAt: UInt64) {
        let now = nowMicros()
        stats.update {
            $0.waiting -= 1
            $0.inDuel += 1
            $0.timeToMatch.record(now - min(queuedAt, now))
        }
        duelSerial += 1
        duel = DuelState(id: duelID, hash: duelID.withUnsafeBytes { $0.fnv1a }, serial: duelSerial, lastFrameAt: now)
        phase = .playing
        watchSilence(serial: duelSerial, after: Self.duelSilenceMicros)
    }

    /// Gives a silent duel up after a minute without frames.
    private func watchSilence(serial: Int, after delay: UInt64) {
        loop.schedule(afterMicros: delay) { [self] in
            guard case .playing = phase, let duel, duel.serial == serial else { return }
            let silent = nowMicros() - min(duel.lastFrameAt, nowMicros())
            if silent >= Self.duelSilenceMicros {
                stats.error("duel_timeout")
                leaveDuel()
                phase = .backingOff
                nextDuel()
            } else {
                watchSilence(serial: serial, after: Self.duelSilenceMicros - silent)
            }
        }
    }

    /// Drops the duel's state and leaves the `in_duel` gauge; returns the duel left, if any.
    @discardableResult
    private func leaveDuel() -> DuelState? {
        guard let left = duel else { return nil }
        duel = nil
        stats.update { $0.inDuel -= 1 }
        return left
    }

    private func duelEvent(seq: Int, receivedAt: UInt64) {
        guard var duel, !resuming else { return }
        // Worked on as a unique copy (no copy-on-write of its set and array) and put back below.
        self.duel = nil
        duel.lastFrameAt = receivedAt
        if seq != duel.lastSeq + 1 { stats.violation("seq_gap") }
        duel.lastSeq = seq
        checkHidden()
        switch frame.event {
        case .question: question(&duel)
        case .answered: answered(&duel, receivedAt: receivedAt)
        case .reveal: revealed(&duel)
        case .complete:
            completed(duel)
            self.duel = duel
            leaveDuel()
            return nextDuel()
        default: break
        }
        self.duel = duel
    }

    private func question(_ duel: inout DuelState) {
        guard let index = frame.question.index, index > duel.answeredIndex else { return }
        // Text and number questions have no choices: the bot's guess is 0.
        let kind = frame.question.type
        let options = kind == .text || kind == .number ? 1 : frame.question.choiceCount ?? 0
        duel.answeredIndex = index
        if Double.random(in: 0..<1) < configuration.skipRate { return }
        let questionID = frame.question.questionID ?? -1
        let think = Int.random(in: configuration.thinkMs)
        if think > 0 {
            let serial = duel.serial
            loop.schedule(afterMicros: UInt64(think) * 1_000) { [self] in
                if case .playing = phase, self.duel?.serial == serial {
                    answer(index: index, questionID: questionID, options: options, kind: kind)
                }
            }
        } else {
            answer(index: index, questionID: questionID, options: options, kind: kind, duel: duel)
        }
    }

    private func answer(
        index: Int, questionID: Int, options: Int, kind: BotFrame.QuestionKind, duel: DuelState? = nil
    ) {
        guard let duel = duel ?? self.duel, options > 0 else { return }
        let known = stats.state.withLock { $0.knowledge[Int64(questionID)] }
        let choice = (known != nil && Double.random(in: 0..<1) < configuration.accuracy)
            ? known! : Int.random(in: 0..<options)
        let sentAt = nowMicros()
        stats.update { $0.sentAt[AnswerKey(duel: duel.hash, index: index, player: me.hash)] = sentAt }
        let ref = reserveRef(.answer(sentAt: sentAt, duel: duel.serial, index: index), timeoutMicros: 30_000_000)
        if kind == .single || kind == .boolean {
            writer.answer(ref: ref, duelID: duel.id, questionIndex: index, choice: choice)
        } else {
            writer.answer(ref: ref, duelID: duel.id, questionIndex: index, kind: kind, pick: choice)
        }
        send()
    }

    private func answered(_ duel: inout DuelState, receivedAt: UInt64) {
        let index = frame.questionIndex ?? -1
        for answer in frame.answers {
            guard let player = answer.player, player != me.hash else { continue }
            guard duel.opponentAnswersSeen.insert(index).inserted else { continue }
            let key = AnswerKey(duel: duel.hash, index: index, player: player)
            stats.update { state in
                if let sent = state.sentAt.removeValue(forKey: key) {
                    state.answerToOpponent.record(receivedAt > sent ? receivedAt - sent : 0)
                }
            }
        }
    }

    private func revealed(_ duel: inout DuelState) {
        guard frame.hasReveal, let correct = frame.reveal.correctChoice else { return }
        let questionID = frame.question.questionID ?? -1
        for (player, points) in frame.reveal.points {
            if let at = duel.pointsFromReveals.firstIndex(where: { $0.player == player }) {
                duel.pointsFromReveals[at].points += points
            } else {
                duel.pointsFromReveals.append((player, points))
            }
        }
        let deadline = frame.question.deadlineMs ?? 0
        let anyCorrect = frame.answers.contains { $0.correct }
        let answerCount = frame.answers.count
        let seats = configuration.roomSize ?? 2
        // The frame is handled as it arrives, so its arrival on the wall clock is now.
        let lateness = wallMs() - Int64(deadline)
        let key = AnswerKey(duel: duel.hash, index: frame.questionIndex ?? -1, player: me.hash)
        stats.update { state in
            state.knowledge[Int64(questionID)] = correct
            // Only reveals the deadline caused measure lateness.
            if !anyCorrect && answerCount < seats { state.revealLateness.record(UInt64(max(0, lateness)) * 1_000) }
            state.sentAt.removeValue(forKey: key)
        }
    }

    private func completed(_ duel: DuelState) {
        for player in frame.players {
            guard let id = player.id else { continue }
            let fromReveals = duel.pointsFromReveals.first { $0.player == id }?.points ?? 0
            if (player.score ?? -1) != fromReveals { stats.violation("score_mismatch") }
        }
        stats.tally.completed(duel: duel.hash)
    }

    /// Rule 10 as the bot sees it.
    private func checkHidden() {
        if (frame.state == .question || frame.state == .countdown) && frame.hasReveal { stats.violation("early_reveal") }
        if frame.question.hasCorrectChoice { stats.violation("leaked_correct_choice") }
        if frame.answers.contains(where: { $0.hasChoice }) { stats.violation("leaked_choice") }
    }
}
