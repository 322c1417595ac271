extension ClientRequest {
    /// Username rule of PROTOCOL.md: 3-32 of letters, digits, `_`, `-`, `.`.
    public static func isValidUsername(_ name: String) -> Bool {
        let scalars = name.unicodeScalars
        return (3...32).contains(scalars.count) && scalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "-" || scalar == ".")
        }
    }

    /// Decodes one text frame. Every failure names its error code; unknown fields are ignored.
    public static func decode<Bytes: Collection>(_ bytes: Bytes) -> Result<RequestEnvelope, RequestDecodingFailure>
    where Bytes.Element == UInt8 {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            return .failure(RequestDecodingFailure(
                ref: nil, error: ProtocolError(.badJSON, "invalid JSON at byte \(error.offset): \(error.reason)")))
        }
        guard case .object(let object) = value else {
            return .failure(RequestDecodingFailure(ref: nil, error: ProtocolError(.badJSON, "the message must be a JSON object")))
        }
        var ref: RequestRef?
        switch object["ref"] {
        case nil, .null?: ref = nil
        case .string(let text)?: ref = .string(text)
        case .int(let number)?: ref = .int(number)
        default:
            return .failure(RequestDecodingFailure(ref: nil, error: .badField("ref", "must be a string or an integer")))
        }
        do {
            let fields = Fields(object: object)
            guard let op = object["op"] else { throw ProtocolError.badField("op", "is required") }
            guard case .string(let name) = op else { throw ProtocolError.badField("op", "must be a string") }
            return .success(RequestEnvelope(ref: ref, request: try decode(op: name, fields)))
        } catch let error as ProtocolError {
            return .failure(RequestDecodingFailure(ref: ref, error: error, op: object["op"]?.string))
        } catch {
            return .failure(RequestDecodingFailure(ref: ref, error: ProtocolError(.internal)))
        }
    }

    private static func decode(op name: String, _ fields: Fields) throws(ProtocolError) -> ClientRequest {
        guard let op = Op(rawValue: name) else {
            throw ProtocolError(.unknownOp, "unknown op '\(String(name.prefix(64)))'")
        }
        switch op {
        case .signup:
            let username = try fields.string("username", maxLength: 64)
            guard isValidUsername(username) else {
                throw .badField("username", "3-32 characters: letters, digits, '_', '-', '.'")
            }
            let password = try fields.string("password", maxLength: 1_024)
            let length = password.unicodeScalars.count
            guard length >= 8 else { throw ProtocolError(.weakPassword, "the password must have at least 8 characters") }
            guard length <= 256 else { throw ProtocolError(.weakPassword, "the password must have at most 256 characters") }
            return .signup(username: username, password: password)
        case .login:
            // A NUL would end the name where libpq sends it as a C string, so the lookup
            // and the login throttle would see two different names.
            return .login(username: try fields.identifier("username", maxLength: 64),
                          password: try fields.string("password", maxLength: 1_024))
        case .auth:
            return .auth(token: try fields.identifier("token", maxLength: 256),
                         timeZone: fields.has("time_zone") ? try fields.timeZone() : nil)
        case .logout: return .logout
        case .banks: return .banks
        case .queue: return .queue(bank: try fields.identifier("bank", maxLength: 128))
        case .cancel: return .cancel
        case .answer:
            return .answer(
                duelID: try fields.identifier("duel_id", maxLength: 128),
                questionIndex: try fields.int("question_index", in: 0...Int(Int32.max)),
                submission: try fields.submission())
        case .forfeit: return .forfeit(duelID: try fields.identifier("duel_id", maxLength: 128))
        case .resume:
            return .resume(
                duelID: try fields.identifier("duel_id", maxLength: 128),
                afterSeq: try fields.int("after_seq", in: 0...Int(Int32.max)))
        case .leaderboard:
            return .leaderboard(
                bank: try fields.identifier("bank", maxLength: 128),
                limit: try fields.int("limit", in: 1...100, default: 20))
        case .profile:
            return .profile(player: try fields.optionalIdentifier("player", maxLength: 128))
        case .history: return .history(limit: try fields.int("limit", in: 1...100, default: 20))
        case .mistakes: return .mistakes(limit: try fields.int("limit", in: 1...100, default: 20))
        case .report:
            let reason = try fields.string("reason", maxLength: 2_000)
            // Counted in code points, as Postgres's char_length in the column's CHECK counts
            // them (Swift's count of characters let 500 emoji with skin tones through here,
            // and the insert then failed as `internal`). Control characters would reach the
            // operators' psql output as they are.
            guard (1...500).contains(reason.unicodeScalars.count) else {
                throw .badField("reason", "must be 1-500 characters (code points)")
            }
            guard !reason.unicodeScalars.contains(where: \.isControlCharacter) else {
                throw .badField("reason", "must not contain control characters")
            }
            // A report names a question or (added) a player's quiz.
            if fields.has("quiz") {
                guard !fields.has("question_id") else { throw .badField("question_id", "send quiz or question_id, not both") }
                return .reportQuiz(quiz: try fields.quiz(), reason: reason)
            }
            return .report(questionID: try fields.int64("question_id"), reason: reason)
        case .practice:
            let bank = try fields.optionalIdentifier("bank", maxLength: 128)
            let mistakes = try fields.bool("mistakes", default: false)
            guard bank != nil || mistakes else { throw .badField("bank", "is required unless mistakes is true") }
            return .practice(bank: bank, mistakes: mistakes)
        case .recorded:
            return .recorded(bank: try fields.identifier("bank", maxLength: 128))
        case .roomCreate:
            let answerMs: Int? = fields.has("answer_ms") ? try fields.int("answer_ms", in: 5_000...60_000) : nil
            return .roomCreate(
                bank: try fields.identifier("bank", maxLength: 128),
                questions: try fields.int("questions", in: 1...20, default: 10), answerMs: answerMs,
                maxPlayers: try fields.int("max_players", in: 2...4, default: 4))
        case .roomJoin:
            return .roomJoin(code: RoomCode.normalized(try fields.identifier("code", maxLength: 32)))
        case .roomLeave: return .roomLeave
        case .roomStart: return .roomStart
        case .challenge:
            return .challenge(
                username: try fields.identifier("username", maxLength: 64), bank: try fields.identifier("bank", maxLength: 128))
        case .challengeAccept: return .challengeAccept(challengeID: try fields.identifier("challenge_id", maxLength: 128))
        case .challengeDecline: return .challengeDecline(challengeID: try fields.identifier("challenge_id", maxLength: 128))
        case .challenges: return .challenges
        case .rematch: return .rematch(duelID: try fields.identifier("duel_id", maxLength: 128))
        case .quizCreate, .quizUpdate, .quizDelete, .quizPublish, .quizUnpublish, .quizQuestions, .quiz, .myQuizzes, .questionAdd, .questionUpdate, .questionDelete, .catalog, .quizSave, .quizUnsave, .library, .rate:
            return try decodeQuizOp(op, fields)
        case .profileUpdate, .goalSet, .goals, .notifications, .notificationsSeen, .ratingHistory, .stats, .achievements,
             .bankPrefSet, .bankPrefs:
            return try decodeProgressOp(op, fields)
        }
    }
}

/// Typed access to a request's fields, each failure a `bad_request` naming the field.
struct Fields {
    let object: JSONObject

    func string(_ name: String, maxLength: Int) throws(ProtocolError) -> String {
        guard let value = object[name], value != .null else { throw .badField(name, "is required") }
        guard case .string(let text) = value else { throw .badField(name, "must be a string") }
        // Lengths in Unicode code points, as Postgres's length() in the schema's CHECKs and JSON
        // Schema's maxLength count them. Swift's `count` (grapheme clusters) let through a text
        // of combining marks (1,000 "e" + U+0301 is 1,000 clusters and 2,000 code points) that
        // the database then refused, as an internal error instead of this one.
        guard text.utf8.count <= maxLength * 4, text.unicodeScalars.count <= maxLength else {
            throw .badField(name, "is too long")
        }
        return text
    }

    /// A string that names something (a bank, a quiz, a username, a room code, an id): the one
    /// reader of identifier fields. A control character is refused, since a NUL would end it
    /// early where libpq sends it as a C string ("ada\u{0}x" would name ada, and
    /// "world-capitals\u{0}junk" world-capitals).
    func identifier(_ name: String, maxLength: Int) throws(ProtocolError) -> String {
        let text = try string(name, maxLength: maxLength)
        guard !text.unicodeScalars.contains(where: \.isControlCharacter) else {
            throw .badField(name, "must not contain control characters")
        }
        return text
    }

    /// Whether the field is present and not null.
    func has(_ name: String) -> Bool {
        object[name].map { $0 != .null } ?? false
    }

    /// ``identifier(_:maxLength:)`` when the field is present and not null.
    func optionalIdentifier(_ name: String, maxLength: Int) throws(ProtocolError) -> String? {
        guard has(name) else { return nil }
        return try identifier(name, maxLength: maxLength)
    }

    func optionalString(_ name: String, maxLength: Int) throws(ProtocolError) -> String? {
        guard let value = object[name], value != .null else { return nil }
        return try string(name, maxLength: maxLength)
    }

    func int(_ name: String, in range: ClosedRange<Int>, default fallback: Int? = nil) throws(ProtocolError) -> Int {
        guard let value = object[name], value != .null else {
            if let fallback { return fallback }
            throw .badField(name, "is required")
        }
        guard let number = value.integer else { throw .badField(name, "must be an integer") }
        guard number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
            throw .badField(name, "must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return Int(number)
    }

    func bool(_ name: String, default fallback: Bool) throws(ProtocolError) -> Bool {
        guard let value = object[name], value != .null else { return fallback }
        guard case .bool(let flag) = value else { throw .badField(name, "must be true or false") }
        return flag
    }

    /// An answer: exactly one of `choice`, `choices`, `text` or `number` (whether it fits the
    /// question is the engine's check, which names the field too).
    func submission() throws(ProtocolError) -> Submission {
        let given = ["choice", "choices", "text", "number"].filter(has)
        guard given.count == 1 else {
            throw given.isEmpty ? .badField("choice", "is required (or choices, text or number)")
                : .badField(given[1], "send only one of choice, choices, text and number")
        }
        switch given[0] {
        case "choice":
            return .choice(try int("choice", in: 0...Int(Int32.max)))
        case "choices":
            guard case .array(let items) = object["choices"], items.count <= 16 else {
                throw .badField("choices", "must be an array of at most 16 integers")
            }
            var picks: [Int] = []
            for item in items {
                guard let number = item.integer, number >= 0, number <= Int64(Int32.max) else {
                    throw .badField("choices", "must hold integers from 0")
                }
                picks.append(Int(number))
            }
            return .choices(picks)
        case "text":
            let text = try string("text", maxLength: AnswerKey.maxTextLength)
            guard !text.unicodeScalars.contains(where: { $0.value == 0 }) else {
                throw .badField("text", "must not contain NUL")
            }
            return .text(text)
        default:
            switch object["number"] {
            case .int(let value)?: return .number(Double(value))
            case .double(let value)? where value.isFinite: return .number(value)
            default: throw .badField("number", "must be a finite number")
            }
        }
    }

    func int64(_ name: String) throws(ProtocolError) -> Int64 {
        guard let value = object[name], value != .null else { throw .badField(name, "is required") }
        guard let number = value.integer else { throw .badField(name, "must be an integer") }
        return number
    }
}
