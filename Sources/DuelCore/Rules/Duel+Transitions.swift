/// The internal transitions shared by every input: opening, revealing, finishing.
extension Duel {
    /// Applies every transition that is due at `nowMs`, earliest first (a recorded opponent's
    /// answer among them, at its own time).
    ///
    /// Each transition is stamped `nowMs` and the next phase is timed from it, so
    /// a timer that fires late (or a server that restarts) never shortens the
    /// next phase. (A reveal opens the next question itself, at the pause's end: see
    /// ``reveal(cause:atMs:into:)``.)
    mutating func catchUp(nowMs: Int64, into step: inout DuelStep) {
        // Terminates: every pass opens a round, reveals one or finishes the duel.
        while phase != .finished {
            let phaseDue = phaseDueAtMs
            if let abandonment = nextAbandonment, abandonment.atMs <= nowMs,
               phaseDue.map({ abandonment.atMs <= $0 }) ?? true {
                if let seat = abandonment.seat {
                    leave(seat: seat, reason: .abandoned, atMs: nowMs, into: &step)
                } else {
                    finish(reason: .abandoned, winner: nil, atMs: nowMs, into: &step)
                }
            } else if let phaseDue, phaseDue <= nowMs {
                if let recorded = nextRecordedAnswer, recorded.atMs == phaseDue {
                    giveRecordedAnswer(recorded, into: &step)
                } else {
                    endPhase(atMs: nowMs, into: &step)
                }
            } else {
                break
            }
        }
    }

    /// The earliest abandonment deadline and the seat that abandons; nil seat when every
    /// player still in the game reaches it at the same millisecond (a draw, or no winner).
    private var nextAbandonment: (atMs: Int64, seat: Int?)? {
        // On every input: a loop, not arrays (the answer path runs it per answer).
        var first: (atMs: Int64, seat: Int)?
        var active = 0, due = 0, tied = true
        for seat in players.indices where players[seat].leftAtMs == nil {
            active += 1
            guard let gone = players[seat].disconnectedAtMs else { continue }
            let at = gone + configuration.abandonAfterMs
            due += 1
            if let current = first {
                if at != current.atMs { tied = false }
                if at < current.atMs { first = (at, seat) }
            } else {
                first = (at, seat)
            }
        }
        guard let first else { return nil }
        if active > 1 && due == active && tied { return (first.atMs, nil) }
        return (first.atMs, first.seat)
    }

    /// Whether every player still in the game has answered `round` (rule 4's reveal).
    func everyActivePlayerAnswered(_ round: DuelRound) -> Bool {
        players.allSatisfy { $0.leftAtMs != nil || round.answer(of: $0.id) != nil }
    }

    /// A player forfeits or is abandoned (rule 8). Two players: the other wins at once.
    /// Alone: the game ends. Three or more: the player is out and the rest play on; when one
    /// is left, the game ends. An open question everyone left has answered is revealed.
    mutating func leave(seat: Int, reason: FinishReason, atMs: Int64, into step: inout DuelStep) {
        // Answers waiting for the settle are judged first, as they stand: the one who leaves
        // may be the one they wait for.
        if phase == .question, currentRound?.isSettling == true { resolveSettle(atMs: atMs, into: &step) }
        switch players.count {
        case 1:
            finish(reason: reason, winner: nil, atMs: atMs, into: &step)
        case 2:
            finish(reason: reason, winner: players[1 - seat].id, atMs: atMs, into: &step)
        default:
            players[seat].leftAtMs = atMs
            step.leftPlayers.append(players[seat].id)
            step.stateTouched = true
            if activeCount <= 1 {
                finish(reason: reason, winner: nil, atMs: atMs, into: &step)
            } else if phase == .question, let round = currentRound, !round.isRevealed, everyActivePlayerAnswered(round) {
                reveal(cause: .allAnswered, atMs: atMs, into: &step)
            }
        }
    }

    private mutating func endPhase(atMs: Int64, into step: inout DuelStep) {
        switch phase {
        case .countdown:
            open(questionIndex: 0, atMs: atMs, into: &step)
        case .question:
            if currentRound?.isSettling == true {
                resolveSettle(atMs: atMs, into: &step)
            } else {
                reveal(cause: .deadline, atMs: atMs, into: &step)
            }
        case .reveal:
            // (A duel started before questions opened in their reveal's step waits here: its input
            // log replays by the rule its stored events were made by.)
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
        // The next question opens in this same step, stamped at the pause's end (issue 25): the
        // opening needs no step of its own, so no round, no write and no wake-up. An answer
        // stamped before it opens is still refused (`wrong_question`), and its `question` event,
        // stored ahead of the clock, is held back from every connection until its time.
        if configuration.opensNextInReveal, rounds.count < questions.count {
            open(questionIndex: rounds.count, atMs: atMs + configuration.revealMs, into: &step)
        }
    }

    /// Rule 8: the higher score wins; equal scores draw. `winner` is for two-player duels;
    /// every game places its players (``placements(winner:)``).
    mutating func finishOnScores(atMs: Int64, into step: inout DuelStep) {
        var winner: PlayerID?
        if players.count == 2 {
            let (a, b) = (players[0].score, players[1].score)
            winner = a == b ? nil : (a > b ? players[0].id : players[1].id)
        }
        finish(reason: .completed, winner: winner, atMs: atMs, into: &step)
    }

    /// Places by score, 1 first, ties sharing a place (1, 2, 2, 4); players who left come
    /// after those who stayed. A two-player duel's winner is first whatever the scores
    /// (a forfeit loses even ahead).
    func placements(winner: PlayerID?) -> [PlayerID: Int] {
        func key(_ player: DuelPlayer) -> (Int, Int) {
            (player.id == winner ? 1 : 0, player.leftAtMs == nil ? 1 : 0)
        }
        var places: [PlayerID: Int] = [:]
        for player in players {
            let ahead = players.filter { other in
                let (a, b) = (key(other), key(player))
                if a != b { return a > b }
                return other.score > player.score
            }.count
            places[player.id] = ahead + 1
        }
        return places
    }

    /// Ends the game: places, outcomes and, for a rated duel, both rating updates from the
    /// same pre-duel values (rule 9).
    mutating func finish(reason: FinishReason, winner: PlayerID?, atMs: Int64, into step: inout DuelStep) {
        // An operator's end or an abandonment while answers wait: they are judged first.
        if phase == .question, currentRound?.isSettling == true { resolveSettle(atMs: atMs, into: &step) }
        // A game that ends in a reveal pause ends before the question opened ahead of it: that
        // question was never played (its stored event goes out with the end, never its key).
        if let round = currentRound, round.opensAtMs > atMs {
            rounds.removeLast()
        }
        let places = placements(winner: winner)
        let rated = isRated && reason != .ended
        var outcomes: [PlayerOutcome]
        if players.count == 2 {
            let outcomeA: GameOutcome = winner == nil ? .draw : (winner == players[0].id ? .win : .loss)
            let glicko = Glicko2(tau: configuration.glickoTau)
            let (afterA, afterB) = rated
                ? glicko.rate(players[0].rating, players[1].rating, outcomeForA: outcomeA)
                : (players[0].rating, players[1].rating)
            outcomes = [(0, outcomeA, afterA), (1, outcomeA.opposite, afterB)].map { seat, outcome, after in
                PlayerOutcome(
                    player: players[seat].id,
                    outcome: outcome.code,
                    score: players[seat].score,
                    rating: RatingChange(before: players[seat].rating, after: after))
            }
        } else {
            // Unrated (only ranked duels, always two players, are rated): place 1 alone wins.
            let firsts = places.values.filter { $0 == 1 }.count
            outcomes = players.map { player in
                let place = places[player.id] ?? players.count
                let outcome: GameOutcomeCode = place == 1 ? (firsts == 1 && players.count > 1 ? .win : .draw) : .loss
                return PlayerOutcome(
                    player: player.id, outcome: outcome, score: player.score,
                    rating: RatingChange(before: player.rating, after: player.rating))
            }
        }
        let result = DuelResult(winner: winner, reason: reason, finishedAtMs: atMs, outcomes: outcomes, placements: places,
                                rated: rated)
        self.result = result
        phase = .finished
        phaseEndsAtMs = nil
        step.completion = result
        step.facts = completionFacts
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
