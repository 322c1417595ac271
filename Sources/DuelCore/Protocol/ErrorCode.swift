/// The stable, machine-readable error codes of PROTOCOL.md.
public enum ErrorCode: String, Sendable, Codable, CaseIterable, Equatable {
    case badJSON = "bad_json"
    case badRequest = "bad_request"
    case unknownOp = "unknown_op"
    case unauthorized
    case rateLimited = "rate_limited"
    case usernameTaken = "username_taken"
    case badCredentials = "bad_credentials"
    /// An operator banned the account (`ops.ban_player`); added after version 1's list.
    case accountDisabled = "account_disabled"
    case weakPassword = "weak_password"
    case unknownBank = "unknown_bank"
    case bankEmpty = "bank_empty"
    case alreadyQueued = "already_queued"
    case notQueued = "not_queued"
    case inDuel = "in_duel"
    case unknownDuel = "unknown_duel"
    case notInDuel = "not_in_duel"
    case wrongQuestion = "wrong_question"
    case alreadyAnswered = "already_answered"
    case lockedOut = "locked_out"
    case tooLate = "too_late"
    case duelOver = "duel_over"
    case unknownQuestion = "unknown_question"
    // Rooms and challenges (issue 12).
    case unknownRoom = "unknown_room"
    case roomFull = "room_full"
    case roomBusy = "room_busy"
    case notHost = "not_host"
    case roomTooSmall = "room_too_small"
    /// A room member plays only the room's games: no queue, practice or challenge meanwhile.
    case inRoom = "in_room"
    case unknownPlayer = "unknown_player"
    case unknownChallenge = "unknown_challenge"
    case challengeExpired = "challenge_expired"
    // Quizzes players make (issue 13).
    /// Another player's quiz: only its owner edits it or sees its keys.
    case notOwner = "not_owner"
    /// A per-player cap: 50 quizzes, 200 questions in a quiz.
    case limitReached = "limit_reached"
    case unavailable
    case `internal`

    /// A human-readable message for when nothing more specific is known.
    public var defaultMessage: String {
        switch self {
        case .badJSON: "the message is not a JSON object"
        case .badRequest: "a field is missing or has the wrong type"
        case .unknownOp: "unknown op"
        case .unauthorized: "log in first"
        case .rateLimited: "too many messages; slow down"
        case .usernameTaken: "that username is taken"
        case .badCredentials: "wrong username or password"
        case .accountDisabled: "this account is disabled"
        case .weakPassword: "the password must be 8 to 256 characters"
        case .unknownBank: "no such question bank"
        case .bankEmpty: "that bank has too few active questions for a duel"
        case .alreadyQueued: "you are already in the queue"
        case .notQueued: "you are not in the queue"
        case .inDuel: "you are in a live duel"
        case .unknownDuel: "no such duel"
        case .notInDuel: "you are not a player of that duel"
        case .wrongQuestion: "that question is not open"
        case .alreadyAnswered: "you already answered that question"
        case .lockedOut: "your opponent already won that question"
        case .tooLate: "the question's deadline has passed"
        case .duelOver: "the duel is over"
        case .unknownQuestion: "no such question"
        case .unknownRoom: "no such room"
        case .roomFull: "the room is full"
        case .roomBusy: "the room is playing a game"
        case .notHost: "only the room's host can do that"
        case .roomTooSmall: "a room's game needs at least two members"
        case .inRoom: "you are in a room; leave it first"
        case .unknownPlayer: "no such player"
        case .unknownChallenge: "no such pending challenge"
        case .challengeExpired: "the challenge expired"
        case .notOwner: "only the quiz's owner can do that"
        case .limitReached: "a limit on what you can create was reached"
        case .unavailable: "the database is unavailable; retry later"
        case .internal: "internal error"
        }
    }
}

/// An error reply's code and message.
public struct ProtocolError: Error, Sendable, Equatable {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String? = nil) {
        self.code = code
        self.message = message ?? code.defaultMessage
    }

    /// `bad_request` naming the offending field.
    public static func badField(_ field: String, _ expectation: String) -> ProtocolError {
        ProtocolError(.badRequest, "\(field): \(expectation)")
    }
}
