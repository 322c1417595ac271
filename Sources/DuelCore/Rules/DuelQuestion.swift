/// One question of a duel as the engine sees it, including its key.
///
/// The key never leaves the server before the question is revealed: the public
/// ``DuelRecord`` carries only what rule 10 allows.
public struct DuelQuestion: Sendable, Equatable {
    /// The question's id in the bank (stable across duels).
    public let id: Int64
    public let prompt: String
    /// Two to six options, shown in this order ("True", "False" for a boolean question);
    /// empty for text and number questions.
    public let choices: [String]
    /// What counts as right.
    public let key: AnswerKey

    public var type: QuestionType { key.type }

    public init(id: Int64, prompt: String, choices: [String], key: AnswerKey) {
        switch key {
        case .single(let correct):
            precondition(choices.indices.contains(correct), "correct choice out of range")
        case .multiple(let correct):
            precondition(!correct.isEmpty && correct.allSatisfy(choices.indices.contains), "correct choices out of range")
        case .boolean:
            precondition(choices.count == 2, "a boolean question has two choices")
        case .text(let accepted, _):
            precondition(choices.isEmpty && !accepted.isEmpty, "a text question has accepted texts, no choices")
        case .number(let correct, let tolerance):
            precondition(choices.isEmpty && correct.isFinite && tolerance >= 0, "a number question has a finite key")
        }
        self.id = id
        self.prompt = prompt
        self.choices = choices
        self.key = key
    }

    /// A single-choice question (the only type before issue 13).
    public init(id: Int64, prompt: String, choices: [String], correctChoice: Int) {
        self.init(id: id, prompt: prompt, choices: choices, key: .single(correct: correctChoice))
    }

    /// The one right option of a single or boolean question.
    public var correctChoice: Int? { key.correctChoice }

    /// The question judges a submission: right, wrong, or why it does not fit.
    public func verdict(_ submission: Submission) -> Result<Bool, AnswerRefusal> {
        key.verdict(submission, options: choices.count)
    }
}

/// The stored form (inside `duels.base_state`): a single-choice question keeps the keys it
/// had before issue 13 (`correctChoice`, no `type`), so states stored then still decode.
extension DuelQuestion: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, prompt, choices, type, correctChoice, correctChoices, accepted, matching, correctNumber, tolerance
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decodeIfPresent(QuestionType.self, forKey: .type) ?? .single
        let key: AnswerKey
        switch type {
        case .single: key = .single(correct: try c.decode(Int.self, forKey: .correctChoice))
        case .boolean: key = .boolean(correct: try c.decode(Int.self, forKey: .correctChoice) == 0)
        case .multiple: key = .multiple(correct: Set(try c.decode([Int].self, forKey: .correctChoices)))
        case .text:
            key = .text(accepted: try c.decode([String].self, forKey: .accepted),
                        matching: try c.decode(TextMatching.self, forKey: .matching))
        case .number:
            key = .number(correct: try c.decode(Double.self, forKey: .correctNumber),
                          tolerance: try c.decode(Double.self, forKey: .tolerance))
        }
        self.init(id: try c.decode(Int64.self, forKey: .id), prompt: try c.decode(String.self, forKey: .prompt),
                  choices: try c.decode([String].self, forKey: .choices), key: key)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(prompt, forKey: .prompt)
        try c.encode(choices, forKey: .choices)
        if type != .single { try c.encode(type, forKey: .type) }
        switch key {
        case .single, .boolean: try c.encode(key.correctChoice, forKey: .correctChoice)
        case .multiple(let correct): try c.encode(correct.sorted(), forKey: .correctChoices)
        case .text(let accepted, let matching):
            try c.encode(accepted, forKey: .accepted)
            try c.encode(matching, forKey: .matching)
        case .number(let correct, let tolerance):
            try c.encode(correct, forKey: .correctNumber)
            try c.encode(tolerance, forKey: .tolerance)
        }
    }
}
