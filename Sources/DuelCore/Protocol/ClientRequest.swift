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
    case auth(token: String)
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

    /// The `op` names, as on the wire.
    public static let ops = [
        "signup", "login", "auth", "logout", "banks", "queue", "cancel", "answer", "forfeit",
        "resume", "leaderboard", "profile", "history", "mistakes", "report", "practice",
        "room_create", "room_join", "room_leave", "room_start", "challenge", "challenge_accept",
        "challenge_decline", "challenges", "rematch",
    ]

    public var op: String {
        switch self {
        case .signup: "signup"
        case .login: "login"
        case .auth: "auth"
        case .logout: "logout"
        case .banks: "banks"
        case .queue: "queue"
        case .cancel: "cancel"
        case .answer: "answer"
        case .forfeit: "forfeit"
        case .resume: "resume"
        case .leaderboard: "leaderboard"
        case .profile: "profile"
        case .history: "history"
        case .mistakes: "mistakes"
        case .report: "report"
        case .practice: "practice"
        case .roomCreate: "room_create"
        case .roomJoin: "room_join"
        case .roomLeave: "room_leave"
        case .roomStart: "room_start"
        case .challenge: "challenge"
        case .challengeAccept: "challenge_accept"
        case .challengeDecline: "challenge_decline"
        case .challenges: "challenges"
        case .rematch: "rematch"
        }
    }

    /// Whether the op is allowed before authentication.
    public var allowedAnonymously: Bool {
        Self.anonymousOps.contains(op)
    }

    /// The ops accepted before authentication.
    public static let anonymousOps: Set<String> = ["signup", "login", "auth", "banks"]
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
