/// A recorded opponent (issue 27): a seat whose answers come from a recording
/// (``DuelPlayer/recording``). Each recorded answer is given in at its question's opening plus
/// its recorded delay, as a deadline like the others: the engine stays pure, and replaying the
/// input log gives the recording's answers at the same times.
extension Duel {
    /// The recorded answer due next in the open question, if any: its seat, what it gives and
    /// when. Only answers rule 5 would take then (before the deadline, from a seat still in the
    /// game that has not answered, a submission the question accepts): so giving it in always
    /// moves the game on.
    var nextRecordedAnswer: (seat: Int, submission: Submission, correct: Bool, atMs: Int64)? {
        guard mode == .recorded, phase == .question, let round = currentRound, round.revealCause == nil else { return nil }
        let index = rounds.count - 1
        var next: (seat: Int, submission: Submission, correct: Bool, atMs: Int64)?
        for seat in players.indices {
            guard let recorded = players[seat].recording?.first(where: { $0.questionIndex == index }) else { continue }
            let at = round.opensAtMs + recorded.afterMs
            guard at <= round.deadlineMs, next.map({ at < $0.atMs }) ?? true,
                  case .success(let (_, correct)) = checkAnswer(player: players[seat].id, questionIndex: index,
                                                               submission: recorded.submission, atMs: at)
            else { continue }
            next = (seat, recorded.submission, correct, at)
        }
        return next
    }

    /// Gives in the recorded answer that is due (judged once, by ``nextRecordedAnswer``),
    /// stamped with its recorded time. Its verdict goes to nobody: a recording waits for no reply.
    mutating func giveRecordedAnswer(
        _ recorded: (seat: Int, submission: Submission, correct: Bool, atMs: Int64), into step: inout DuelStep
    ) {
        _ = take(seat: recorded.seat, questionIndex: rounds.count - 1, submission: recorded.submission,
                 correct: recorded.correct, atMs: recorded.atMs, into: &step)
        step.settled.removeValue(forKey: players[recorded.seat].id)
    }
}
