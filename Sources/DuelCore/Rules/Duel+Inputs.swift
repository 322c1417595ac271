/// The inputs of the duel state machine. Each applies the deadlines already due
/// at its time first, then itself, then any transition it made due at once
/// (for example a reveal pause of 0).
extension Duel {
    /// Applies the deadlines due at `nowMs` (countdown end, question deadline,
    /// reveal end, abandonment). A call before any deadline is due does nothing.
    public mutating func advance(nowMs: Int64) -> DuelStep {
        var step = DuelStep()
        catchUp(nowMs: nowMs, into: &step)
        finishStep(&step)
        return step
    }

    /// A one-choice answer (single and boolean questions).
    public mutating func answer(player: PlayerID, questionIndex: Int, choice: Int, atMs: Int64) -> DuelStep {
        answer(player: player, questionIndex: questionIndex, submission: .choice(choice), atMs: atMs)
    }

    /// A player's answer to question `questionIndex`, arriving at server time `atMs` (rules 3-6).
    /// The question's key judges it, whatever its type; lock-out and scoring are the same for all.
    public mutating func answer(player: PlayerID, questionIndex: Int, submission: Submission, atMs: Int64) -> DuelStep {
        var step = DuelStep()
        catchUp(nowMs: atMs, into: &step)
        switch checkAnswer(player: player, questionIndex: questionIndex, submission: submission, atMs: atMs) {
        case .failure(let rejection):
            step.outcome = .rejected(rejection)
            // Only a question still to open may take the answer later.
            step.refusalStands = rejection.code != .wrongQuestion || questionIndex < rounds.count
                || questionIndex >= questions.count
        case .success(let (seat, correct)):
            step.outcome = take(seat: seat, questionIndex: questionIndex, submission: submission, correct: correct,
                                atMs: atMs, into: &step)
            catchUp(nowMs: atMs, into: &step)
        }
        finishStep(&step)
        return step
    }

    /// An answer that passed rule 5's checks (a player's, or a recording's at its time): judged,
    /// scored and revealed as rules 4-6 say. Returns the author's verdict, the reply.
    mutating func take(
        seat: Int, questionIndex: Int, submission: Submission, correct: Bool, atMs: Int64, into step: inout DuelStep
    ) -> DuelStep.Outcome {
        let player = players[seat].id
        let round = rounds[questionIndex]
        // Issue 26: every rule but the deadline judges the answer by its credited time.
        let credited = max(round.opensAtMs, atMs - (players[seat].lagMs ?? 0))
        let points = Scoring.points(
            correct: correct, atMs: credited, deadlineMs: round.deadlineMs, configuration: configuration)
        let answer = DuelAnswer(player: player, submission: submission, correct: correct, atMs: atMs, points: points,
                                creditedAtMs: credited)
        // An answer proves its author is there, whatever their sockets say (a new
        // connection on another instance may not have been seen yet): rule 8's clock stops.
        players[seat].connected = true
        players[seat].disconnectedAtMs = nil
        if correct && !round.isSettling && settleTime(of: answer, in: round) <= atMs {
            // Nobody could have answered earlier (everyone near, or everyone answered): rule
            // 4 at once, version 1's path, with nothing to wait for.
            judge(answer, questionIndex: questionIndex, atMs: atMs, into: &step)
            reveal(cause: .won, atMs: atMs, into: &step)
            return .answered(correct: true, points: points)
        } else if correct || round.isSettling {
            // Rule 4 by credited time: a first correct answer wins only once no one still
            // able to answer could arrive credited earlier (``settle(questionIndex:atMs:into:)``).
            rounds[questionIndex].pending = (round.pending ?? []) + [answer]
            step.stateTouched = true
            settle(questionIndex: questionIndex, atMs: atMs, into: &step)
            // The author's own verdict is the reply to this input; `settled` is for the others.
            return step.settled.removeValue(forKey: player) ?? .settling
        } else {
            judge(answer, questionIndex: questionIndex, atMs: atMs, into: &step)
            if everyActivePlayerAnswered(rounds[questionIndex]) {
                reveal(cause: .allAnswered, atMs: atMs, into: &step)
            }
            return .answered(correct: false, points: 0)
        }
    }

    /// Rule 5's checks, in the order a client author would expect; returns the answering seat
    /// and whether the answer is right.
    func checkAnswer(
        player: PlayerID, questionIndex: Int, submission: Submission, atMs: Int64
    ) -> Result<(Int, Bool), ProtocolError> {
        guard let seat = seat(of: player) else { return .failure(ProtocolError(.notInDuel)) }
        guard phase != .finished, players[seat].leftAtMs == nil else { return .failure(ProtocolError(.duelOver)) }
        guard questionIndex >= 0 else {
            return .failure(ProtocolError(.badRequest, "question_index must not be negative"))
        }
        guard questionIndex < rounds.count else {
            return .failure(ProtocolError(.wrongQuestion, "question \(questionIndex) is not open"))
        }
        let round = rounds[questionIndex]
        // An answer stamped before its question opened (it arrived while a timer's
        // transaction was opening the question later) is not an answer to it.
        guard atMs >= round.opensAtMs else {
            return .failure(ProtocolError(.wrongQuestion, "question \(questionIndex) was not open yet"))
        }
        if round.answer(of: player) != nil { return .failure(ProtocolError(.alreadyAnswered)) }
        switch round.revealCause {
        case .won?:
            return .failure(ProtocolError(.lockedOut))
        case .deadline?, .allAnswered?:
            return .failure(ProtocolError(.tooLate))
        case nil:
            break
        }
        // The round is open, so it is the current one and `atMs` is not past its deadline
        // (catchUp would have revealed it otherwise).
        switch questions[questionIndex].verdict(submission) {
        case .success(let correct): return .success((seat, correct))
        case .failure(let refusal): return .failure(ProtocolError(.badRequest, refusal.message))
        }
    }

    /// A player gives up (rule 8). In a two-player duel the opponent wins at once, in any
    /// live state; alone, the game ends; in a game of three or more the player is out and
    /// the others play on until one is left.
    public mutating func forfeit(player: PlayerID, atMs: Int64) -> DuelStep {
        var step = DuelStep()
        catchUp(nowMs: atMs, into: &step)
        if let seat = seat(of: player) {
            if phase == .finished || players[seat].leftAtMs != nil {
                step.outcome = .rejected(ProtocolError(.duelOver))
                step.refusalStands = true
            } else {
                leave(seat: seat, reason: .forfeit, atMs: atMs, into: &step)
            }
        } else {
            step.outcome = .rejected(ProtocolError(.notInDuel))
            step.refusalStands = true
        }
        finishStep(&step)
        return step
    }

    /// An operator ends the duel: it finishes at once, unrated, without a winner. Deadlines
    /// already due apply first, so a duel that would have completed completes as usual.
    public mutating func end(atMs: Int64) -> DuelStep {
        var step = DuelStep()
        catchUp(nowMs: atMs, into: &step)
        if phase == .finished {
            step.outcome = .rejected(ProtocolError(.duelOver))
            step.refusalStands = true
        } else {
            finish(reason: .ended, winner: nil, atMs: atMs, into: &step)
        }
        finishStep(&step)
        return step
    }

    /// The server measured the player's lag (issue 26). Emits no event: it shows in the next
    /// event's record.
    public mutating func measured(_ player: PlayerID, lagMs: Int64, atMs: Int64) -> DuelStep {
        changePlayer(player, atMs: atMs) { seat in
            guard seat.lagMs != max(0, lagMs) else { return false }
            seat.lagMs = max(0, lagMs)
            return true
        }
    }

    /// The player's last connection closed: the abandonment clock starts (rule 8).
    ///
    /// Emits no event: the `connected` flag shows in the next event's record.
    public mutating func playerDisconnected(_ player: PlayerID, atMs: Int64) -> DuelStep {
        setConnected(false, player: player, atMs: atMs)
    }

    /// The player is connected again: the abandonment clock stops.
    public mutating func playerReconnected(_ player: PlayerID, atMs: Int64) -> DuelStep {
        setConnected(true, player: player, atMs: atMs)
    }

    private mutating func setConnected(_ connected: Bool, player: PlayerID, atMs: Int64) -> DuelStep {
        // A player who loses their connection is no longer waited for: a settle waiting for
        // them comes sooner (``settleTime(of:in:)``).
        changePlayer(player, atMs: atMs, resettle: !connected) { seat in
            guard seat.connected != connected else { return false }
            seat.connected = connected
            seat.disconnectedAtMs = connected ? nil : atMs
            return true
        }
    }

    /// A change of one player's standing that emits no event (presence, lag): the deadlines due
    /// first, then `change`, which says whether it changed anything, then what that made due
    /// (an abandonment). Refused for a stranger or a finished duel.
    private mutating func changePlayer(
        _ player: PlayerID, atMs: Int64, resettle: Bool = false, _ change: (inout DuelPlayer) -> Bool
    ) -> DuelStep {
        var step = DuelStep()
        catchUp(nowMs: atMs, into: &step)
        if let seat = seat(of: player) {
            if phase == .finished {
                step.outcome = .rejected(ProtocolError(.duelOver))
                step.refusalStands = true
            } else if !players[seat].isRecorded, change(&players[seat]) {
                // (A recording has no connection to lose and no lag: nothing changes it.)
                step.stateTouched = true
                if resettle, phase == .question, currentRound?.isSettling == true {
                    settle(questionIndex: rounds.count - 1, atMs: atMs, into: &step)
                }
                catchUp(nowMs: atMs, into: &step)
            }
        } else {
            step.outcome = .rejected(ProtocolError(.notInDuel))
            step.refusalStands = true
        }
        finishStep(&step)
        return step
    }
}
