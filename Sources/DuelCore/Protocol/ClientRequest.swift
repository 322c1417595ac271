/// The `ref` a client attaches to a request, echoed in its reply.
public enum RequestRef: Sendable, Equatable, Hashable {
    case string(String)
    case int(Int64)

    public var json: JSONValue {
        switch self {
        case .string(let value): .string(value)
        case .int(let value): .int(value)
        }
    }
}

/// Every client operation of PROTOCOL.md, with its fields typed and validated.
public enum ClientRequest: Sendable, Equatable {
    case signup(username: String, password: String)
    case login(username: String, password: String)
    /// `timeZone`: an IANA name for the player's streak days (issue 14), when sent.
    case auth(token: String, timeZone: String? = nil)
    case logout
    case banks
    case queue(bank: String)
    case cancel
    case answer(duelID: String, questionIndex: Int, submission: Submission)
    case forfeit(duelID: String)
    case resume(duelID: String, afterSeq: Int)
    case leaderboard(bank: String, limit: Int)
    /// nil: the requester's own profile.
    case profile(player: PlayerID?)
    case history(limit: Int)
    case mistakes(limit: Int)
    case report(questionID: Int64, reason: String)
    /// A one-player unrated game: random questions of `bank`, or (with `mistakes`) the
    /// player's mistakes notebook, of `bank` when given.
    case practice(bank: String?, mistakes: Bool)
    /// A game against a recorded opponent (issue 27).
    case recorded(bank: String)
    /// A room of `maxPlayers`; `answerMs` nil: the server's answer window.
    case roomCreate(bank: String, questions: Int, answerMs: Int?, maxPlayers: Int)
    /// `code` as typed, normalized (``RoomCode/normalized(_:)``).
    case roomJoin(code: String)
    case roomLeave
    case roomStart
    case challenge(username: String, bank: String)
    case challengeAccept(challengeID: String)
    case challengeDecline(challengeID: String)
    case challenges
    case rematch(duelID: String)
    // Quizzes players make (issue 13); `quiz` is the quiz's slug.
    case quizCreate(QuizFields)
    case quizUpdate(quiz: String, QuizFields)
    case quizDelete(quiz: String)
    case quizPublish(quiz: String)
    case quizUnpublish(quiz: String)
    /// The owner's full view: every question with its key.
    case quizQuestions(quiz: String)
    /// A quiz's page (op `quiz`): its record, with the requester's vote and whether saved.
    case quizInfo(quiz: String)
    case myQuizzes
    case questionAdd(quiz: String, QuestionDraft)
    case questionUpdate(questionID: Int64, QuestionDraft)
    case questionDelete(questionID: Int64)
    case catalog(CatalogQuery)
    case quizSave(quiz: String)
    case quizUnsave(quiz: String)
    case library
    /// `value`: 1 like, -1 dislike, 0 takes the vote back.
    case rate(RateTarget, value: Int)
    case reportQuiz(quiz: String, reason: String)
    // Progress (issue 14).
    case profileUpdate(timeZone: String)
    case goalSet(GoalDraft)
    case goals
    case notifications(limit: Int, before: Int64?)
    case notificationsSeen(upTo: Int64)
    case ratingHistory(bank: String, limit: Int)
    case stats(bank: String?)
    case achievements
    // The learning diary (issue 27).
    case bankPrefSet(BankPrefDraft)
    case bankPrefs

    /// The `op` names, as on the wire (``Op``, the one list).
    public static var ops: [String] { Op.allCases.map(\.rawValue) }

    /// The op this request was sent as.
    public var opName: Op {
        switch self {
        case .signup: .signup
        case .login: .login
        case .auth: .auth
        case .logout: .logout
        case .banks: .banks
        case .queue: .queue
        case .cancel: .cancel
        case .answer: .answer
        case .forfeit: .forfeit
        case .resume: .resume
        case .leaderboard: .leaderboard
        case .profile: .profile
        case .history: .history
        case .mistakes: .mistakes
        case .report: .report
        case .practice: .practice
        case .recorded: .recorded
        case .roomCreate: .roomCreate
        case .roomJoin: .roomJoin
        case .roomLeave: .roomLeave
        case .roomStart: .roomStart
        case .challenge: .challenge
        case .challengeAccept: .challengeAccept
        case .challengeDecline: .challengeDecline
        case .challenges: .challenges
        case .rematch: .rematch
        case .quizCreate: .quizCreate
        case .quizUpdate: .quizUpdate
        case .quizDelete: .quizDelete
        case .quizPublish: .quizPublish
        case .quizUnpublish: .quizUnpublish
        case .quizQuestions: .quizQuestions
        case .quizInfo: .quiz
        case .myQuizzes: .myQuizzes
        case .questionAdd: .questionAdd
        case .questionUpdate: .questionUpdate
        case .questionDelete: .questionDelete
        case .catalog: .catalog
        case .quizSave: .quizSave
        case .quizUnsave: .quizUnsave
        case .library: .library
        case .rate: .rate
        case .reportQuiz: .report
        case .profileUpdate: .profileUpdate
        case .goalSet: .goalSet
        case .goals: .goals
        case .notifications: .notifications
        case .notificationsSeen: .notificationsSeen
        case .ratingHistory: .ratingHistory
        case .stats: .stats
        case .achievements: .achievements
        case .bankPrefSet: .bankPrefSet
        case .bankPrefs: .bankPrefs
        }
    }

    /// The op's wire name.
    public var op: String { opName.rawValue }

    /// Whether the op writes a player's quizzes: these share a per-player rate limit.
    public var isAuthoring: Bool {
        switch self {
        case .quizCreate, .quizUpdate, .quizDelete, .quizPublish, .quizUnpublish, .questionAdd, .questionUpdate,
             .questionDelete: true
        default: false
        }
    }

    /// Whether the op is allowed before authentication.
    public var allowedAnonymously: Bool { opName.isAnonymous }
}

/// A decoded client message: its ref and request.
public struct RequestEnvelope: Sendable, Equatable {
    public let ref: RequestRef?
    public let request: ClientRequest
}

/// Why a client message could not be decoded; the error reply to send.
public struct RequestDecodingFailure: Error, Sendable, Equatable {
    /// The message's ref when it could be read, so the error reply can carry it.
    public let ref: RequestRef?
    public let error: ProtocolError
    /// The `op` when it was a string, so that an unauthenticated client asking for
    /// an op that needs a login hears `unauthorized` first, whatever its fields.
    public var op: String? = nil
}
