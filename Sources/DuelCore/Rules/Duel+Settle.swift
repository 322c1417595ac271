/// Rule 4 by credited time (issue 26): who answered right first is judged by when each answer
/// was given, not by whose packets travel faster.
///
/// An answer's credited time is its arrival less its author's lag (the capped round trip the
/// server measured, ``DuelPlayer/lagMs``), never before the question opened. A correct answer
/// cannot win at once when a player still able to answer is farther away: their answer, arriving
/// later, may have been given earlier. So the first correct answer and every answer after it
/// wait, unjudged and unseen (``DuelRound/pending``), until the settle: the latest moment at
/// which anyone still able to answer could arrive credited earlier than the best correct answer
/// so far. With every lag 0 the settle is the correct answer's own arrival, and the rules are
/// exactly those of version 1.
extension Duel {
    /// When the waiting answers of `round` can be judged, given the best correct answer so far
    /// (`leader`): `leader`'s credited time plus the largest lag among the players who are still
    /// in the game, connected, and have not answered (a player with no connection cannot be
    /// answering: waiting for them only delays the reveal for everyone). An answer arriving at that millisecond is credited
    /// no earlier than `leader` and loses the tie. No later than the deadline's end: nothing
    /// arrives in time after it (rule 3 stays on the server's clock).
    func settleTime(of leader: DuelAnswer, in round: DuelRound) -> Int64 {
        var latest = leader.creditedAtMs
        for player in players where player.leftAtMs == nil && player.connected && player.id != leader.player
            && round.answer(of: player.id) == nil {
            latest = max(latest, leader.creditedAtMs + (player.lagMs ?? 0))
        }
        return min(latest, round.deadlineMs + 1)
    }

    /// The waiting answer that wins if the settle came now: the correct one credited first,
    /// the earlier arrival on a tie.
    private func leader(of round: DuelRound) -> DuelAnswer? {
        var best: DuelAnswer?
        for answer in round.pending ?? [] where answer.correct {
            if best.map({ answer.creditedAtMs < $0.creditedAtMs }) ?? true { best = answer }
        }
        return best
    }

    /// After an answer joined the waiting ones: judges them now if the settle has come,
    /// otherwise (re)sets when it comes. The settle only moves earlier: the leader can only be
    /// replaced by one credited earlier, and fewer players are left to wait for.
    mutating func settle(questionIndex: Int, atMs: Int64, into step: inout DuelStep) {
        guard let leader = leader(of: rounds[questionIndex]) else { return }
        let due = settleTime(of: leader, in: rounds[questionIndex])
        if due <= atMs {
            resolveSettle(atMs: atMs, into: &step)
        } else {
            rounds[questionIndex].settlesAtMs = due
        }
    }

    /// Judges the waiting answers of the open question: the leader wins it; a wrong answer
    /// credited before the leader counts (it locked out only its author); every other answer
    /// was locked out by the leader and is dropped. Each one's verdict goes into
    /// `step.settled` for the reply its author still waits for. Then the question is revealed.
    mutating func resolveSettle(atMs: Int64, into step: inout DuelStep) {
        let index = rounds.count - 1
        guard let waiting = rounds[index].pending, let leader = leader(of: rounds[index]) else { return }
        rounds[index].pending = nil
        rounds[index].settlesAtMs = nil
        step.stateTouched = true
        // In credited order (stable: arrival order on ties), so the `answered` events tell the
        // question as it was played.
        let ordered = waiting.enumerated().sorted {
            ($0.element.creditedAtMs, $0.offset) < ($1.element.creditedAtMs, $1.offset)
        }.map(\.element)
        for answer in ordered {
            if answer.player == leader.player || (!answer.correct && answer.creditedAtMs < leader.creditedAtMs) {
                judge(answer, questionIndex: index, atMs: atMs, into: &step)
                step.settled[answer.player] = .answered(correct: answer.correct, points: answer.points)
            } else {
                step.settled[answer.player] = .rejected(ProtocolError(.lockedOut))
            }
        }
        reveal(cause: .won, atMs: atMs, into: &step)
    }

    /// Records an answer as given: it counts, scores, and every player sees that it came
    /// (`answered`, stamped `atMs`: when it was judged).
    mutating func judge(_ answer: DuelAnswer, questionIndex: Int, atMs: Int64, into step: inout DuelStep) {
        let round = rounds[questionIndex]
        rounds[questionIndex].answers.append(answer)
        let seat = seat(of: answer.player)
        // A recording's answers are nobody's: not stored as answers (duel_answers), so no
        // statistics count them twice.
        if let seat, !players[seat].isRecorded {
            step.newAnswers.append(DuelStep.NewAnswer(
                questionIndex: questionIndex, answer: answer, elapsedMs: max(0, answer.creditedAtMs - round.opensAtMs)))
        }
        if let seat { players[seat].score += answer.points }
        emit(.answered, atMs: atMs, into: &step)
    }
}
