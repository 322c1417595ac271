/// A question as a player writes it (`question_add`, `question_update`): prompt, choices and
/// key, checked field by field before anything is stored.
public struct QuestionDraft: Sendable, Equatable {
    public let prompt: String
    /// 2-6 for single and multiple, True and False for boolean, none for text and number.
    public let choices: [String]
    public let key: AnswerKey

    public var type: QuestionType { key.type }

    public init(prompt: String, choices: [String], key: AnswerKey) {
        self.prompt = prompt
        self.choices = choices
        self.key = key
    }
}

/// The fields of a quiz a player sets (`quiz_create`, `quiz_update`); nil: not sent.
public struct QuizFields: Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var theme: String?
    public var difficulty: String?

    public init(title: String? = nil, description: String? = nil, theme: String? = nil, difficulty: String? = nil) {
        self.title = title
        self.description = description
        self.theme = theme
        self.difficulty = difficulty
    }

    public var isEmpty: Bool { title == nil && description == nil && theme == nil && difficulty == nil }
}

/// A `catalog` search.
public struct CatalogQuery: Sendable, Equatable {
    public enum Sort: String, Sendable, CaseIterable {
        /// Most played first.
        case popular
        /// Most recently published first.
        case new
        /// Best like ratio first (smoothed, so a quiz with one like does not top it).
        case topRated = "top_rated"
    }

    public var search: String?
    public var theme: String?
    public var difficulty: String?
    public var sort: Sort
    public var limit: Int
    /// How many entries earlier pages showed (the reply's `next_cursor`).
    public var offset: Int

    public init(search: String? = nil, theme: String? = nil, difficulty: String? = nil, sort: Sort = .popular,
                limit: Int = 20, offset: Int = 0) {
        self.search = search
        self.theme = theme
        self.difficulty = difficulty
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }
}

/// What `rate` votes on.
public enum RateTarget: Sendable, Equatable {
    case quiz(String)
    case question(Int64)
}
