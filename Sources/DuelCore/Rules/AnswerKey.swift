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

    /// Whether the question shows choices to pick from.
    public var hasChoices: Bool { self == .single || self == .multiple || self == .boolean }

    /// The `answer` field this type takes.
    public var answerField: String {
        switch self {
        case .single, .boolean: "choice"
        case .multiple: "choices"
        case .text: "text"
        case .number: "number"
        }
    }

    /// The choices every boolean question shows, in this order.
    public static let booleanChoices = ["True", "False"]
}

/// What a player sent as an answer.
public enum Submission: Sendable, Equatable {
    case choice(Int)
    case choices([Int])
    case text(String)
    case number(Double)

    /// The picked option of a one-choice answer (the `choice` column and field).
    public var choice: Int? {
        if case .choice(let choice) = self { choice } else { nil }
    }
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

    /// The one right option of a single or boolean question.
    public var correctChoice: Int? {
        switch self {
        case .single(let correct): correct
        case .boolean(let correct): correct ? 0 : 1
        default: nil
        }
    }

    /// Whether `submission` is right; nil when it does not fit the question (`bad_request`).
    public func judge(_ submission: Submission, options: Int) -> Bool? {
        try? verdict(submission, options: options).get()
    }

    /// Whether `submission` is right, or why it does not fit the question (`bad_request`, the
    /// message naming the field): the wrong kind of answer, a choice out of `options`, repeated
    /// choices, a text too long, a number that is not finite.
    public func verdict(_ submission: Submission, options: Int) -> Result<Bool, AnswerRefusal> {
        switch (self, submission) {
        case (.single(let correct), .choice(let choice)):
            guard (0..<options).contains(choice) else { return .failure(.choiceRange(options)) }
            return .success(choice == correct)
        case (.boolean(let correct), .choice(let choice)):
            guard choice == 0 || choice == 1 else { return .failure(.choiceRange(2)) }
            return .success((choice == 0) == correct)
        case (.multiple(let correct), .choices(let choices)):
            guard !choices.isEmpty else { return .failure(AnswerRefusal("choices: pick at least one")) }
            guard choices.allSatisfy({ (0..<options).contains($0) }) else {
                return .failure(AnswerRefusal("choices: each must be between 0 and \(options - 1)"))
            }
            let picked = Set(choices)
            guard picked.count == choices.count else { return .failure(AnswerRefusal("choices: must be distinct")) }
            return .success(picked == correct)
        case (.text(let accepted, let matching), .text(let text)):
            guard text.count <= Self.maxTextLength else {
                return .failure(AnswerRefusal("text: at most \(Self.maxTextLength) characters"))
            }
            return .success(accepted.contains { TextMatch.matches(text, $0, matching) })
        case (.number(let correct, let tolerance), .number(let number)):
            guard number.isFinite else { return .failure(AnswerRefusal("number: must be a finite number")) }
            // A hair of slack for decimal fractions that binary floating point cannot hold
            // exactly (0.1 + 0.2 against 0.3 with tolerance 0).
            return .success(abs(number - correct) <= tolerance + 1e-9 * max(1, abs(correct)))
        default:
            return .failure(AnswerRefusal(
                "\(type.answerField): this \(type.rawValue) question is answered with `\(type.answerField)`"))
        }
    }
}

/// Why an answer does not fit its question: the `bad_request` message, naming the field.
public struct AnswerRefusal: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    static func choiceRange(_ options: Int) -> AnswerRefusal {
        AnswerRefusal("choice: must be between 0 and \(options - 1)")
    }
}
