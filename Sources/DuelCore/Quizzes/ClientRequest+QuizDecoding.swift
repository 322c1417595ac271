/// Decoding of the quiz ops (issue 13): every field checked, each refusal a `bad_request`
/// naming the field.
extension ClientRequest {
    /// The quiz op `op` (the main decoder sends only those here).
    static func decodeQuizOp(_ op: Op, _ fields: Fields) throws(ProtocolError) -> ClientRequest {
        switch op {
        case .quizCreate:
            let quiz = try fields.quizFields()
            guard quiz.title != nil else { throw .badField("title", "is required") }
            return .quizCreate(quiz)
        case .quizUpdate:
            let quiz = try fields.quizFields()
            guard !quiz.isEmpty else { throw .badField("title", "send at least one of title, description, theme, difficulty") }
            return .quizUpdate(quiz: try fields.quiz(), quiz)
        case .quizDelete: return .quizDelete(quiz: try fields.quiz())
        case .quizPublish: return .quizPublish(quiz: try fields.quiz())
        case .quizUnpublish: return .quizUnpublish(quiz: try fields.quiz())
        case .quizQuestions: return .quizQuestions(quiz: try fields.quiz())
        case .quiz: return .quizInfo(quiz: try fields.quiz())
        case .myQuizzes: return .myQuizzes
        case .questionAdd: return .questionAdd(quiz: try fields.quiz(), try fields.questionDraft())
        case .questionUpdate:
            return .questionUpdate(questionID: try fields.int64("question_id"), try fields.questionDraft())
        case .questionDelete: return .questionDelete(questionID: try fields.int64("question_id"))
        case .catalog: return .catalog(try fields.catalogQuery())
        case .quizSave: return .quizSave(quiz: try fields.quiz())
        case .quizUnsave: return .quizUnsave(quiz: try fields.quiz())
        case .library: return .library
        case .rate:
            let target: RateTarget
            switch (fields.has("quiz"), fields.has("question_id")) {
            case (true, false): target = .quiz(try fields.quiz())
            case (false, true): target = .question(try fields.int64("question_id"))
            case (true, true): throw .badField("question_id", "send quiz or question_id, not both")
            case (false, false): throw .badField("quiz", "is required (or question_id)")
            }
            return .rate(target, value: try fields.int("value", in: -1...1))
        default:
            throw ProtocolError(.internal, "not a quiz op: \(op.rawValue)")
        }
    }
}

extension Fields {
    /// A quiz's id: its slug, as `quiz_create` returned it.
    func quiz() throws(ProtocolError) -> String {
        try identifier("quiz", maxLength: 64)
    }

    /// Text a player writes: trimmed, within `range` code points, no control characters
    /// (line breaks allowed in `multiline` text).
    func playerText(_ name: String, _ range: ClosedRange<Int>, multiline: Bool = false) throws(ProtocolError) -> String {
        let raw = try string(name, maxLength: range.upperBound + 64)
        let text = raw.trimmingWhitespace
        guard range.contains(text.unicodeScalars.count) else {
            throw .badField(name, range.lowerBound == 0
                ? "must be at most \(range.upperBound) characters"
                : "must be \(range.lowerBound)-\(range.upperBound) characters")
        }
        guard !text.unicodeScalars.contains(where: {
            $0.properties.generalCategory == .control && !(multiline && $0 == "\n")
        }) else { throw .badField(name, "must not contain control characters") }
        return text
    }

    func quizFields() throws(ProtocolError) -> QuizFields {
        var quiz = QuizFields()
        if has("title") { quiz.title = try playerText("title", QuizLimits.title) }
        if has("description") { quiz.description = try playerText("description", QuizLimits.description, multiline: true) }
        if has("theme") { quiz.theme = try playerText("theme", QuizLimits.theme).lowercased() }
        if has("difficulty") {
            let difficulty = try string("difficulty", maxLength: 16)
            guard QuizLimits.difficulties.contains(difficulty) else {
                throw .badField("difficulty", "must be easy, medium, hard or mixed")
            }
            quiz.difficulty = difficulty
        }
        return quiz
    }

    func catalogQuery() throws(ProtocolError) -> CatalogQuery {
        var query = CatalogQuery()
        if has("search") {
            let search = try playerText("search", QuizLimits.search)
            query.search = search.isEmpty ? nil : search
        }
        if has("theme") { query.theme = try playerText("theme", QuizLimits.theme).lowercased() }
        if has("difficulty") {
            let difficulty = try string("difficulty", maxLength: 16)
            guard QuizLimits.difficulties.contains(difficulty) else {
                throw .badField("difficulty", "must be easy, medium, hard or mixed")
            }
            query.difficulty = difficulty
        }
        if has("sort") {
            guard let sort = CatalogQuery.Sort(rawValue: try string("sort", maxLength: 16)) else {
                throw .badField("sort", "must be popular, new or top_rated")
            }
            query.sort = sort
        }
        query.limit = try int("limit", in: 1...50, default: 20)
        if has("cursor") {
            guard let offset = Int(try string("cursor", maxLength: 12)), offset >= 0 else {
                throw .badField("cursor", "must be a next_cursor of an earlier reply")
            }
            query.offset = offset
        }
        return query
    }

    /// A question's fields for its type: the key in the reveal's names (`correct_choice`,
    /// `correct_choices`, `accepted` and `matching`, `correct_number` and `tolerance`). A key
    /// field of another type is refused, so a client's mistake does not pass silently.
    func questionDraft() throws(ProtocolError) -> QuestionDraft {
        guard let type = QuestionType(rawValue: try string("type", maxLength: 16)) else {
            throw .badField("type", "must be single, multiple, boolean, text or number")
        }
        let prompt = try playerText("prompt", QuizLimits.prompt, multiline: true)
        let keyFields: [QuestionType: Set<String>] = [
            .single: ["choices", "correct_choice"], .multiple: ["choices", "correct_choices"],
            .boolean: ["correct_choice"], .text: ["accepted", "matching"], .number: ["correct_number", "tolerance"],
        ]
        for field in ["choices", "correct_choice", "correct_choices", "accepted", "matching", "correct_number", "tolerance"]
        where has(field) && !keyFields[type]!.contains(field) {
            throw .badField(field, "is not a field of \(type.rawValue) questions")
        }
        switch type {
        case .single, .multiple:
            let choices = try texts("choices", count: 2...6, each: QuizLimits.choice)
            guard Set(choices.map { $0.lowercased() }).count == choices.count else {
                throw .badField("choices", "must be distinct")
            }
            if type == .single {
                return QuestionDraft(prompt: prompt, choices: choices,
                                     key: .single(correct: try int("correct_choice", in: 0...(choices.count - 1))))
            }
            guard case .array(let items)? = object["correct_choices"], !items.isEmpty else {
                throw .badField("correct_choices", "must be an array of at least one index")
            }
            var correct: Set<Int> = []
            for item in items {
                guard let index = item.integer, (0..<Int64(choices.count)).contains(index),
                      correct.insert(Int(index)).inserted
                else { throw .badField("correct_choices", "must be distinct indices of choices") }
            }
            return QuestionDraft(prompt: prompt, choices: choices, key: .multiple(correct: correct))
        case .boolean:
            return QuestionDraft(prompt: prompt, choices: QuestionType.booleanChoices,
                                 key: .boolean(correct: try int("correct_choice", in: 0...1) == 0))
        case .text:
            let accepted = try texts("accepted", count: QuizLimits.accepted, each: 1...AnswerKey.maxTextLength)
            var matching = TextMatching.rough
            if has("matching") {
                guard let value = TextMatching(rawValue: try string("matching", maxLength: 32)) else {
                    throw .badField("matching", "must be exact, case_insensitive or rough")
                }
                matching = value
            }
            return QuestionDraft(prompt: prompt, choices: [], key: .text(accepted: accepted, matching: matching))
        case .number:
            let correct = try finite("correct_number")
            let tolerance = has("tolerance") ? try finite("tolerance") : 0
            guard tolerance >= 0 else { throw .badField("tolerance", "must not be negative") }
            return QuestionDraft(prompt: prompt, choices: [], key: .number(correct: correct, tolerance: tolerance))
        }
    }

    /// An array of `count` non-empty texts of `each` code points.
    private func texts(_ name: String, count: ClosedRange<Int>, each: ClosedRange<Int>) throws(ProtocolError) -> [String] {
        guard case .array(let items)? = object[name], count.contains(items.count) else {
            throw .badField(name, "must be an array of \(count.lowerBound)-\(count.upperBound) texts")
        }
        var texts: [String] = []
        for item in items {
            guard case .string(let raw) = item else { throw .badField(name, "must hold texts") }
            let text = raw.trimmingWhitespace
            guard each.contains(text.unicodeScalars.count) else {
                throw .badField(name, "each must be \(each.lowerBound)-\(each.upperBound) characters")
            }
            guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw .badField(name, "must not contain control characters")
            }
            texts.append(text)
        }
        return texts
    }

    private func finite(_ name: String) throws(ProtocolError) -> Double {
        switch object[name] {
        case .int(let value)?: return Double(value)
        case .double(let value)? where value.isFinite: return value
        case nil, .null?: throw .badField(name, "is required")
        default: throw .badField(name, "must be a finite number")
        }
    }
}

extension String {
    /// Without surrounding white space and line breaks.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
