/// The kinds of question (issue 13) and what a player sends for each.
public enum QuestionType: String, Sendable, Codable, Equatable, CaseIterable {
    /// One correct choice; `answer` sends `choice`.
    case single
    /// Check all that apply; `answer` sends `choices`, right only as exactly the correct set.
    case multiple
    /// True (choice 0) or False (choice 1); `answer` sends `choice`.
    case boolean
    /// Typed text of at most ``AnswerKey/maxTextLength`` characters; `answer` sends `text`.
    case text
    /// A number, right within the question's tolerance; `answer` sends `number`.
    case number
}

/// What a player sent as an answer.
public enum Submission: Sendable, Equatable {
    case choice(Int)
    case choices([Int])
    case text(String)
    case number(Double)
}

/// A question's key: what counts as right. Never sent to a client before the reveal.
public enum AnswerKey: Sendable, Equatable {
    case single(correct: Int)
    case multiple(correct: Set<Int>)
    /// `true`: the right choice is 0 ("True").
    case boolean(correct: Bool)
    /// Right when the text matches any of `accepted` under `matching`.
    case text(accepted: [String], matching: TextMatching)
    case number(correct: Double, tolerance: Double)

    public static let maxTextLength = 200

    public var type: QuestionType {
        switch self {
        case .single: .single
        case .multiple: .multiple
        case .boolean: .boolean
        case .text: .text
        case .number: .number
        }
    }

    /// Whether `submission` is right; nil when it does not fit the question (`bad_request`):
    /// the wrong kind of answer, a choice out of `options`, repeated choices, a text too long,
    /// a number that is not finite.
    public func judge(_ submission: Submission, options: Int) -> Bool? {
        switch (self, submission) {
        case (.single(let correct), .choice(let choice)):
            guard (0..<options).contains(choice) else { return nil }
            return choice == correct
        case (.boolean(let correct), .choice(let choice)):
            guard choice == 0 || choice == 1 else { return nil }
            return (choice == 0) == correct
        case (.multiple(let correct), .choices(let choices)):
            let picked = Set(choices)
            guard picked.count == choices.count, choices.allSatisfy({ (0..<options).contains($0) }) else { return nil }
            return picked == correct
        case (.text(let accepted, let matching), .text(let text)):
            guard text.count <= Self.maxTextLength else { return nil }
            return accepted.contains { TextMatch.matches(text, $0, matching) }
        case (.number(let correct, let tolerance), .number(let number)):
            guard number.isFinite else { return nil }
            return abs(number - correct) <= tolerance
        default:
            return nil
        }
    }
}
