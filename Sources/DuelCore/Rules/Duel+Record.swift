/// Shaping the engine's state into the public record.
extension Duel {
    /// The record as `viewer` may see it now, or nil when `viewer` is not a player of this duel.
    ///
    /// Rule 10 holds for any viewer: the record carries a correct choice or a
    /// chosen option only in `reveal`, and only for a revealed question.
    public func record(for viewer: PlayerID) -> DuelRecord? {
        seat(of: viewer) == nil ? nil : record()
    }

    /// The record every player may see now.
    func record() -> DuelRecord {
        let round = currentRound
        let question = round.map { round -> DuelRecord.Question in
            let q = questions[round.questionIndex]
            return DuelRecord.Question(
                index: round.questionIndex, questionID: q.id, prompt: q.prompt, type: q.type, choices: q.choices,
                opensAtMs: round.opensAtMs, deadlineMs: round.deadlineMs)
        }
        let answers = (round?.answers ?? []).map {
            DuelRecord.Answer(player: $0.player, correct: $0.correct, atMs: $0.atMs, creditMs: $0.creditMs)
        }
        var reveal: DuelRecord.Reveal?
        if let round, round.isRevealed, phase == .reveal || phase == .finished {
            var answers: [PlayerID: Submission?] = [:]
            var points: [PlayerID: Int] = [:]
            for player in players {
                answers[player.id] = .some(round.answer(of: player.id)?.submission)
                points[player.id] = round.points(of: player.id)
            }
            reveal = DuelRecord.Reveal(
                questionIndex: round.questionIndex, key: questions[round.questionIndex].key,
                answers: answers, points: points)
        }
        let result = self.result.map { result in
            DuelRecord.Result(
                winner: result.winner, reason: result.reason,
                ratings: Dictionary(uniqueKeysWithValues: result.outcomes.map {
                    ($0.player, (before: $0.rating.before.displayed, after: $0.rating.after.displayed))
                }),
                placements: result.placements ?? placements(winner: result.winner))
        }
        return DuelRecord(
            id: id, bank: bank, mode: mode, state: phase,
            players: players.map {
                DuelRecord.Player(
                    id: $0.id, username: $0.username, rating: $0.rating.displayed,
                    score: $0.score, connected: $0.connected, lagMs: $0.lagMs ?? 0)
            },
            questionCount: questions.count, questionIndex: questionIndex,
            question: question, phaseEndsAtMs: phaseEndsAtMs, answers: answers, reveal: reveal, result: result)
    }
}
