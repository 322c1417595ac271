import DuelCore

/// The bot's game phases: finding a game (the ranked queue, or a room or practice game with
/// `--room-size`, through ``GameFinder``) and playing it (through ``BotPlayer``), then the
/// next. In a file of its own beside `Bot.swift` (the lifecycle, connection, requests and
/// frame routing), which is why the state these share is internal rather than private:
/// nothing outside the two files touches it.
extension Bot {
    // MARK: Finding games

    /// Asks for the next game, once the run is not over and a share of `--duels` is free (a
    /// bot that asked without one could start a duel past the target).
    func nextDuel() {
        if run.isOver || !connection.isOpen { return finish() }
        guard finder.reserveShare() else {
            // The duels still needed are spoken for: wait for a share to free up.
            phase = .backingOff
            return loop.schedule(afterMicros: 100_000) { [self] in if case .backingOff = phase { nextDuel() } }
        }
        stats.update { $0.gauges.waiting += 1 }
        phase = .matching(queuedAt: nowMicros())
        if configuration.roomSize != nil { return nextRoomGame() }
        let ref = reserveRef(.queue, timeoutMicros: 30_000_000)
        connection.writer.queue(ref: ref, bankJSON: finder.bankJSON)
        connection.sendWritten()
    }

    /// The reply to `queue`: a refusal backs off and queues again (the `init` is what matters).
    func queueReplied() {
        // Only a refusal while still unmatched matters (an `init` may have come first).
        guard !frame.ok, case .matching = phase else { return }
        stats.update { $0.gauges.waiting -= 1 }
        phase = .backingOff
        loop.schedule(afterMicros: 200_000) { [self] in
            if case .backingOff = phase { nextDuel() }
        }
    }

    /// Waiting for a game (phase `matching`) with `--room-size`: practice alone; else the
    /// host creates the room or starts its next game, and the others join it once, then wait
    /// for each `init`.
    private func nextRoomGame() {
        switch finder.nextRoomStep() {
        case .send(let request): sendRoomRequest(request)
        case .startWhenFull: startIfFull()
        case .waitForCode:
            loop.schedule(afterMicros: 50_000) { [self] in
                if case .matching = phase { nextRoomGame() }
            }
        case .waitForGame: break
        }
    }

    private func sendRoomRequest(_ request: GameFinder.RoomRequest) {
        let ref = reserveRef(.room, timeoutMicros: 30_000_000)
        connection.send(request.json(ref: ref, bank: finder.bank))
    }

    /// The host starts a game once every member is in (one started early would leave some out).
    func startIfFull() {
        guard case .matching = phase, finder.takeStart() else { return }
        sendRoomRequest(.start)
    }

    /// The reply to a room request: the host learns its code from `room_create`'s.
    func roomReplied(_ bytes: UnsafeRawBufferPointer) {
        guard frame.ok else {
            // A refused join is tried again from the board (the code may be stale).
            finder.roomRefused()
            if case .matching = phase { retryRoom() }
            return
        }
        if finder.read(roomReply: bytes) { startIfFull() }
    }

    /// A refused room request: try again shortly (a start may race the last game's end).
    func retryRoom() {
        finder.willRetry()
        loop.schedule(afterMicros: 200_000) { [self] in
            if case .matching = phase { finder.waitsToStart ? startIfFull() : nextRoomGame() }
        }
    }

    // MARK: Playing

    /// The duel's `init`: the bot plays it, and gives it up if it falls silent.
    func matched(duelID: [UInt8], queuedAt: UInt64) {
        let now = nowMicros()
        stats.update {
            $0.gauges.waiting -= 1
            $0.gauges.inDuel += 1
            $0.record(\.timeToMatch, now - min(queuedAt, now))
        }
        let serial = player.begin(duelID: duelID, at: now)
        phase = .playing
        watchSilence(serial: serial, after: BotPlayer.silenceMicros)
    }

    /// Gives a silent duel up after a minute without frames.
    private func watchSilence(serial: Int, after delay: UInt64) {
        loop.schedule(afterMicros: delay) { [self] in
            guard case .playing = phase, let silent = player.silence(serial: serial, now: nowMicros()) else { return }
            if silent >= BotPlayer.silenceMicros {
                stats.error("duel_timeout")
                player.leave()
                phase = .backingOff
                nextDuel()
            } else {
                watchSilence(serial: serial, after: BotPlayer.silenceMicros - silent)
            }
        }
    }

    /// An event of the duel played: the player checks and answers it, the bot sends and schedules.
    func duelEvent(seq: Int, receivedAt: UInt64) {
        switch player.event(frame, seq: seq, receivedAt: receivedAt) {
        case .none: break
        case .answer(let planned): answer(planned)
        case .answerAfter(let planned, let micros):
            loop.schedule(afterMicros: micros) { [self] in
                if case .playing = phase, player.duel?.serial == planned.serial { answer(planned) }
            }
        case .completed:
            player.leave()
            nextDuel()
        }
    }

    /// Sends an answer the player chose (now, or after its think time).
    private func answer(_ planned: BotPlayer.PlannedAnswer) {
        guard let chosen = player.choose(planned) else { return }
        let ref = reserveRef(.answer(sentAt: chosen.sentAt, duel: planned.serial, index: chosen.index), timeoutMicros: 30_000_000)
        connection.writer.answer(
            ref: ref, duelID: chosen.duelID, questionIndex: chosen.index, kind: chosen.kind, pick: chosen.choice)
        connection.sendWritten()
    }
}
