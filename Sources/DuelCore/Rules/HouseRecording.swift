/// The house's recording (issue 27): the opponent a recorded game gets before anyone has played
/// its bank, so a newcomer on an empty server still has a duel. It plays like a middling
/// student: right about three times in five, answering between a quarter and two thirds of the
/// way into each question's window. Its randomness is drawn when the game starts and stored
/// with it (``DuelPlayer/recording``), so a rebuild replays the same game.
public enum HouseRecording {
    public static func answers(
        for questions: [DuelQuestion], answerWindowMs: Int64, using random: inout some RandomNumberGenerator
    ) -> [RecordedAnswer] {
        questions.enumerated().map { index, question in
            let right = Int.random(in: 0..<5, using: &random) < 3
            let afterMs = Int64.random(in: (answerWindowMs / 4)...(answerWindowMs * 2 / 3), using: &random)
            return RecordedAnswer(questionIndex: index, submission: submission(for: question.key, right: right), afterMs: afterMs)
        }
    }

    /// The key itself, or a near miss of the same kind.
    static func submission(for key: AnswerKey, right: Bool) -> Submission {
        switch key {
        case .single(let correct): .choice(right ? correct : (correct == 0 ? 1 : 0))
        case .boolean(let correct): .choice((correct == right) ? 0 : 1)
        case .multiple(let correct): .choices(right ? correct.sorted() : Array(correct.sorted().dropLast()))
        case .text(let accepted, _): .text(right ? accepted[0] : "?")
        case .number(let correct, let tolerance): .number(right ? correct : correct + 2 * tolerance + 1)
        }
    }
}
