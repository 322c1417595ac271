/// The internal transitions shared by every input: opening, revealing, finishing.
extension Duel {
    /// Applies every transition that is due at `nowMs`, earliest first.
    ///
    /// Each transition is stamped `nowMs` and the next phase is timed from it, so
    /// a timer that fires late (or a server that restarts) never shortens the
    /// next question's window.
    mutating func catchUp(nowMs: Int64, into step: inout DuelStep) {
        // Terminates: every pass opens a round, reveals one or finishes the duel.
        while phase != .finished {
            let phaseDue = phaseDueAtMs
            if let abandonment = nextAbandonment, abandonment.atMs <= nowMs,
               phaseDue.map({ abandonment.atMs <= $0 }) ?? true {
                let winner = abandonment.seat.map { players[1 - $0].id }
                finish(reason: .abandoned, winner: winner, atMs: nowMs, into: &step)
            } else if let phaseDue, phaseDue <= nowMs {
                endPhase(atMs: nowMs, into: &step)
            } else {
                break
            }
        }
    }

    /// The earliest abandonment deadline and the seat that abandons (nil when both
    /// players reach it at the same millisecond, which is a draw).
    private var nextAbandonment: (atMs: Int64, seat: Int?)? {
        let due = players.indices.compactMap { seat -> (atMs: Int64, seat: Int?)? in
            players[seat].disconnectedAtMs.map { ($0 + configuration.abandonAfterMs, seat) }
        }
        guard let first = due.min(by: { $0.atMs < $1.atMs }) else { return nil }
        if due.count == 2 && due[0].atMs == due[1].atMs { return (first.atMs, nil) }
        return first
    }

    private mutating func endPhase(atMs: Int64, into step: inout DuelStep) {
        switch phase {
        case .countdown:
            open(questionIndex: 0, atMs: atMs, into: &step)
        case .question:
            reveal(cause: .deadline, atMs: atMs, into: &step)
        case .reveal:
            if rounds.count < questions.count {
                open(questionIndex: rounds.count, atMs: atMs, into: &step)
            } else {
                finishOnScores(atMs: atMs, into: &step)
            }
        case .finished:
            break
        }
    }

    mutating func open(questionIndex: Int, atMs: Int64, into step: inout DuelStep) {
        let deadline = atMs + configuration.answerWindowMs
        rounds.append(DuelRound(
            questionIndex: questionIndex, opensAtMs: atMs, deadlineMs: deadline,
            answers: [], revealedAtMs: nil, revealCause: nil))
        phase = .question
        phaseEndsAtMs = deadline
        emit(.question, atMs: atMs, into: &step)
    }

    mutating func reveal(cause: RevealCause, atMs: Int64, into step: inout DuelStep) {
        rounds[rounds.count - 1].revealedAtMs = atMs
        rounds[rounds.count - 1].revealCause = cause
        phase = .reveal
        phaseEndsAtMs = atMs + configuration.revealMs
        emit(.reveal, atMs: atMs, into: &step)
    }

    /// Rule 8: the higher score wins; equal scores draw.
    mutating func finishOnScores(atMs: Int64, into step: inout DuelStep) {
        let (a, b) = (players[0].score, players[1].score)
        let winner: PlayerID? = a == b ? nil : (a > b ? players[0].id : players[1].id)
        finish(reason: .completed, winner: winner, atMs: atMs, into: &step)
    }

    /// Ends the duel and computes both rating updates from the same pre-duel values (rule 9).
    mutating func finish(reason: FinishReason, winner: PlayerID?, atMs: Int64, into step: inout DuelStep) {
        let outcomeA: GameOutcome = winner == nil ? .draw : (winner == players[0].id ? .win : .loss)
        let glicko = Glicko2(tau: configuration.glickoTau)
        let (afterA, afterB) = reason.isRated
            ? glicko.rate(players[0].rating, players[1].rating, outcomeForA: outcomeA)
            : (players[0].rating, players[1].rating)
        let outcomes = [(0, outcomeA, afterA), (1, outcomeA.opposite, afterB)].map { seat, outcome, after in
            PlayerOutcome(
                player: players[seat].id,
                outcome: outcome.code,
                score: players[seat].score,
                rating: RatingChange(before: players[seat].rating, after: after))
        }
        let result = DuelResult(winner: winner, reason: reason, finishedAtMs: atMs, outcomes: outcomes)
        self.result = result
        phase = .finished
        phaseEndsAtMs = nil
        step.completion = result
        emit(.complete, atMs: atMs, into: &step)
    }

    mutating func emit(_ kind: DuelEventKind, atMs: Int64, into step: inout DuelStep) {
        seq += 1
        step.events.append(DuelEvent(seq: seq, kind: kind, atMs: atMs, record: record()))
    }

    func finishStep(_ step: inout DuelStep) {
        step.nextDeadlineMs = nextDeadlineMs
        if step.changedState {
            step.row = DuelStep.Row(
                phase: phase, lastSeq: seq, nextDeadlineMs: nextDeadlineMs,
                questionsOpened: rounds.count, result: result)
        }
    }
}

extension GameOutcome {
    var code: GameOutcomeCode {
        switch self {
        case .win: .win
        case .draw: .draw
        case .loss: .loss
        }
    }
}
