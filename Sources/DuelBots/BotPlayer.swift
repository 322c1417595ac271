import DuelCore

/// Plays the duel a bot is in: picks an answer for each question (after a think time, right
/// as often as ``PlayStyle/accuracy`` says once the answer is known, skipping some), times the
/// answers and reveals for the report, and has every event checked by ``DuelRules``.
///
/// It decides and measures but does not send or schedule: ``Bot`` owns the connection, the
/// timers and the phase, so ``event(_:seq:receivedAt:)`` returns a ``Step`` (answer now,
/// answer after a think time, the duel is over) and ``Bot`` carries it out. Kept as a value in
/// its bot and touched only on the loop's thread. The question, answered and reveal frames
/// allocate nothing here: the duel is changed in place (``event(_:seq:receivedAt:)``), steps
/// and planned answers are plain values, and the only closure is the think timer's, as before.
struct BotPlayer {
    /// An answer decided on a question, to send now or once the think time is over.
    struct PlannedAnswer {
        /// The duel it is for (``serial``): a timer that fires after the duel ended is stale.
        let serial: Int
        let index: Int
        let questionID: Int
        /// Choices to pick from (1 for text and number questions, whose guess is 0).
        let options: Int
        let kind: BotFrame.QuestionKind
    }

    /// What the bot does after an event of its duel.
    enum Step {
        case none
        case answer(PlannedAnswer)
        case answerAfter(PlannedAnswer, micros: UInt64)
        /// `complete`: the duel is over and counted.
        case completed
    }

    /// The answer to send: the choice, and when it was sent (recorded for the opponent's latency).
    struct ChosenAnswer {
        let duelID: [UInt8]
        let index: Int
        let kind: BotFrame.QuestionKind
        let choice: Int
        let sentAt: UInt64
    }

    /// The duel being played.
    struct Duel {
        let id: [UInt8]
        let hash: UInt64
        let serial: Int
        var answeredIndex = -1
        var lastFrameAt: UInt64
        /// Question indexes whose opponent answer was already timed.
        var opponentAnswersSeen = Set<Int>()
        var rules = DuelRules()
    }

    /// A duel with no frame for this long is given up (`duel_timeout`).
    static let silenceMicros: UInt64 = 60_000_000

    private let style: PlayStyle
    /// Players in a game (the room's size, 2 in the queue): a reveal with fewer answers and
    /// none correct was caused by the deadline, and measures its lateness.
    private let seats: Int
    /// With `--reconnect`: accepted answers are listed for the drills.
    private let listsAcknowledged: Bool
    private let stats: BotStats
    /// Issue 26: this bot's one-way delay (ms, 0 when direct), and whether any bot has one. With
    /// far players the latencies leave the simulated network out: the opponent's `answered` is
    /// timed from the event's commit (after its settle), the reveal's lateness less the delay.
    private let delayMs: Int64
    private let withFarPlayers: Bool
    /// This bot's player id (hashed), known once signed in.
    private var me: UInt64 = 0
    private(set) var duel: Duel?
    /// Numbers the duels played, so that a timer set for one duel is ignored in the next.
    private var serial = 0
    /// A `resume` is on its way: the duel's events before its reply are dropped (the
    /// replay that follows it starts right after the last seq this bot saw).
    var resuming = false

    init(style: PlayStyle, seats: Int, listsAcknowledged: Bool, stats: BotStats, delayMs: Int = 0,
         withFarPlayers: Bool = false) {
        self.delayMs = Int64(delayMs)
        self.withFarPlayers = withFarPlayers
        self.style = style
        self.seats = seats
        self.listsAcknowledged = listsAcknowledged
        self.stats = stats
    }

    /// Signed in (or in again) as the player whose id hashes to `player`.
    mutating func signedIn(as player: UInt64) {
        me = player
        if delayMs > 0 { stats.update { $0.races.farPlayers.insert(player) } }
    }

    /// The bot is in a new duel (its `init` came); returns the duel's serial.
    mutating func begin(duelID: [UInt8], at now: UInt64) -> Int {
        serial += 1
        duel = Duel(id: duelID, hash: duelID.withUnsafeBytes { $0.fnv1a }, serial: serial, lastFrameAt: now)
        return serial
    }

    /// Drops the duel and leaves the `in_duel` gauge; returns the duel left, if any.
    @discardableResult
    mutating func leave() -> Duel? {
        guard let left = duel else { return nil }
        duel = nil
        stats.update { $0.gauges.inDuel -= 1 }
        return left
    }

    /// The frame is an event of the duel being played.
    func plays(_ duelID: UInt64?) -> Bool {
        duel.map { $0.hash == duelID } ?? false
    }

    /// How long the duel `serial` has had no frame; nil when it is not the one played.
    func silence(serial: Int, now: UInt64) -> UInt64? {
        guard let duel, duel.serial == serial else { return nil }
        return now - min(duel.lastFrameAt, now)
    }

    /// `resume` for the duel played, from the last seq seen (after a reconnection).
    func resumeRequest(ref: Int) -> JSONValue? {
        guard let duel else { return nil }
        return .object([
            "op": "resume", "ref": .number(ref),
            "duel_id": .string(String(decoding: duel.id, as: UTF8.self)), "after_seq": .number(duel.rules.lastSeq),
        ])
    }

    // MARK: Events

    /// One event of the duel played (`seq` is its seq), received at `receivedAt`.
    ///
    /// The duel is taken out while it is worked on and put back at the end, so that its set
    /// and arrays are uniquely referenced and change in place (no copy-on-write).
    mutating func event(_ frame: BotFrame, seq: Int, receivedAt: UInt64) -> Step {
        guard var duel, !resuming else { return .none }
        self.duel = nil
        defer { self.duel = duel }
        duel.lastFrameAt = receivedAt
        stats.record(duel.rules.check(frame, seq: seq))
        switch frame.event {
        case .question: return question(frame, &duel)
        case .answered:
            if withFarPlayers {
                answeredAfterSettle(frame, &duel)
            } else {
                answered(frame, &duel, receivedAt: receivedAt)
            }
        case .reveal: revealed(frame, duel)
        case .complete:
            stats.tally.completed(duel: duel.hash)
            return .completed
        default: break
        }
        return .none
    }

    private func question(_ frame: BotFrame, _ duel: inout Duel) -> Step {
        guard let index = frame.question.index, index > duel.answeredIndex else { return .none }
        // Text and number questions have no choices: the bot's guess is 0.
        let kind = frame.question.type
        let options = kind == .text || kind == .number ? 1 : frame.question.choiceCount ?? 0
        duel.answeredIndex = index
        if Double.random(in: 0..<1) < style.skipRate { return .none }
        let planned = PlannedAnswer(
            serial: duel.serial, index: index, questionID: frame.question.questionID ?? -1, options: options, kind: kind)
        let think = Int.random(in: style.thinkMs)
        return think > 0 ? .answerAfter(planned, micros: UInt64(think) * 1_000) : .answer(planned)
    }

    private func answered(_ frame: BotFrame, _ duel: inout Duel, receivedAt: UInt64) {
        let index = frame.questionIndex ?? -1
        for answer in frame.answers {
            guard let player = answer.player, player != me else { continue }
            guard duel.opponentAnswersSeen.insert(index).inserted else { continue }
            let key = SentAnswerKey(duel: duel.hash, index: index, player: player)
            stats.update { state in
                if let sent = state.sentAt.removeValue(forKey: key) {
                    state.record(\.answerToOpponent, receivedAt > sent ? receivedAt - sent : 0)
                }
            }
        }
    }

    /// With far players: the opponent's answer timed from its event's commit on the server's
    /// clock (after any settle) to its arrival here, less this bot's delay.
    private func answeredAfterSettle(_ frame: BotFrame, _ duel: inout Duel) {
        let index = frame.questionIndex ?? -1
        guard let committed = frame.envelope.commitMs,
              frame.answers.contains(where: { $0.player != nil && $0.player != me }),
              duel.opponentAnswersSeen.insert(index).inserted else { return }
        let micros = UInt64(max(0, wallMs() - delayMs - committed)) * 1_000
        stats.update { $0.record(\.answerToOpponent, micros) }
    }

    /// Issue 26: a question this bot won against a player on the other side of the network.
    private func countRace(_ frame: BotFrame) {
        guard withFarPlayers, frame.answers.first(where: { $0.correct })?.player == me,
              let opponent = frame.players.first(where: { $0.id != nil && $0.id != me })?.id else { return }
        let far = delayMs > 0
        stats.update { state in
            guard state.races.farPlayers.contains(opponent) != far else { return }
            if far { state.races.farWins += 1 } else { state.races.nearWins += 1 }
        }
    }

    private func revealed(_ frame: BotFrame, _ duel: Duel) {
        countRace(frame)
        guard frame.hasReveal, let correct = frame.reveal.correctChoice else { return }
        let questionID = frame.question.questionID ?? -1
        let deadline = frame.question.deadlineMs ?? 0
        let anyCorrect = frame.answers.contains { $0.correct }
        let answerCount = frame.answers.count
        let seats = seats
        // The frame is handled as it arrives, so its arrival on the wall clock is now.
        let lateness = wallMs() - delayMs - Int64(deadline)
        let key = SentAnswerKey(duel: duel.hash, index: frame.questionIndex ?? -1, player: me)
        stats.update { state in
            state.knowledge[Int64(questionID)] = correct
            // Only reveals the deadline caused measure lateness.
            if !anyCorrect && answerCount < seats {
                let micros = UInt64(max(0, lateness)) * 1_000
                state.record(\.revealLateness, micros)
                if withFarPlayers { state.record(delayMs > 0 ? \.revealLatenessFar : \.revealLatenessNear, micros) }
            }
            state.sentAt.removeValue(forKey: key)
        }
    }

    // MARK: Answers

    /// Picks the answer to `planned` (the known one as often as the accuracy says, else a
    /// guess) and notes when it is sent; nil when the duel is over or there is nothing to pick.
    func choose(_ planned: PlannedAnswer) -> ChosenAnswer? {
        guard let duel, duel.serial == planned.serial, planned.options > 0 else { return nil }
        let known = stats.state.withLock { $0.knowledge[Int64(planned.questionID)] }
        let choice = (known != nil && Double.random(in: 0..<1) < style.accuracy)
            ? known! : Int.random(in: 0..<planned.options)
        // Timed from when it reaches the server: the opponent's latency leaves this bot's delay out.
        let sentAt = nowMicros() + UInt64(delayMs) * 1_000
        stats.update { $0.sentAt[SentAnswerKey(duel: duel.hash, index: planned.index, player: me)] = sentAt }
        return ChosenAnswer(duelID: duel.id, index: planned.index, kind: planned.kind, choice: choice, sentAt: sentAt)
    }

    /// The server's reply to an answer sent at `sentAt` for question `index` of duel `serial`.
    func answerReplied(sentAt: UInt64, serial: Int, index: Int, ok: Bool) {
        let now = nowMicros()
        let acknowledged = listsAcknowledged && ok && duel?.serial == serial
            ? duel.map { String(decoding: $0.id, as: UTF8.self) + ":\(index)" } : nil
        stats.update {
            $0.record(\.answerToReply, now - min(sentAt, now))
            $0.answers += 1
            if let acknowledged { $0.acknowledged.append(acknowledged) }
        }
    }
}
