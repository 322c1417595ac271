/// What a bot reads from one server frame, filled by a single ``JSONScanner``
/// pass (no tree, no Strings: ids are kept as FNV-1a hashes).
///
/// One instance per bot is reused for every frame so that its arrays keep their
/// capacity. Fields a frame lacks keep their reset values (nil, false, empty).
///
/// It is kept in the protocol's two parts: the ``Envelope`` every frame has (op, ref,
/// event, duel id, seq) and the duel ``Record`` of events. The read-only properties below
/// name their fields directly (`frame.seq`, `frame.answers`), as the rule checks read them.
struct BotFrame {
    enum Op: Equatable { case reply, error, event, other }
    enum Event: Equatable { case `init`, question, answered, reveal, complete, other }
    enum State: Equatable { case countdown, question, reveal, finished, other }

    struct Answer: Equatable {
        var player: UInt64?
        var correct: Bool
        /// A pick in an answer before its reveal would be a leak (rule 10).
        var hasChoice: Bool
    }

    struct PlayerScore: Equatable {
        var id: UInt64?
        var score: Int?
    }

    /// The fields outside `record`: what the frame is and whom it is for.
    struct Envelope {
        var op = Op.other
        /// Bots send integer refs; a string ref is never theirs.
        var ref: Int?
        var ok = false
        /// An error's code (short, so a small String that does not allocate).
        var code: String?
        var event: Event?
        var duelID: UInt64?
        /// Where the duel id's raw bytes are in the frame (a bot keeps them from `init` for its requests).
        var duelIDRange: Range<Int>?
        var seq: Int?
        /// The event's `commit_timestamp` in ms since 1970 (the server's clock when it was made).
        var commitMs: Int64?
    }

    /// The duel record of an event: what the rule checks and the player read.
    struct Record {
        /// `record` is an object.
        var isPresent = false
        var state: State?
        var questionIndex: Int?
        /// `question` is an object (not null or missing).
        var hasQuestion = false
        var question = Question()
        var answers: [Answer] = []
        /// `reveal` is present and not null.
        var hasReveal = false
        var reveal = Reveal()
        var players: [PlayerScore] = []

        /// Back to a frame without a record, keeping the arrays' capacity.
        mutating func reset() {
            isPresent = false
            state = nil
            questionIndex = nil
            hasQuestion = false
            question = Question()
            answers.removeAll(keepingCapacity: true)
            hasReveal = false
            reveal.correctChoice = nil
            reveal.points.removeAll(keepingCapacity: true)
            players.removeAll(keepingCapacity: true)
        }
    }

    private(set) var envelope = Envelope()
    private(set) var record = Record()

    var op: Op { envelope.op }
    var ref: Int? { envelope.ref }
    var ok: Bool { envelope.ok }
    var code: String? { envelope.code }
    var event: Event? { envelope.event }
    var duelID: UInt64? { envelope.duelID }
    var duelIDRange: Range<Int>? { envelope.duelIDRange }
    var seq: Int? { envelope.seq }
    var hasRecord: Bool { record.isPresent }
    var state: State? { record.state }
    var questionIndex: Int? { record.questionIndex }
    var hasQuestion: Bool { record.hasQuestion }
    var question: Question { record.question }
    var answers: [Answer] { record.answers }
    var hasReveal: Bool { record.hasReveal }
    var reveal: Reveal { record.reveal }
    var players: [PlayerScore] { record.players }

    struct Question: Equatable {
        var index: Int?
        var questionID: Int?
        var choiceCount: Int?
        var deadlineMs: Int?
        /// The question's `type`; single when absent (version 1).
        var type = QuestionKind.single
        /// A key inside `question` would be a leak (rule 10): `correct_choice`,
        /// `correct_choices`, `accepted` or `correct_number`.
        var hasCorrectChoice = false
    }

    /// What the bot sends for a question: a choice, several, a text or a number.
    enum QuestionKind: Equatable { case single, multiple, boolean, text, number }

    struct Reveal: Equatable {
        var correctChoice: Int?
        var points: [(player: UInt64, points: Int)] = []

        static func == (lhs: Reveal, rhs: Reveal) -> Bool {
            lhs.correctChoice == rhs.correctChoice && lhs.points.elementsEqual(rhs.points) { $0 == $1 }
        }
    }

    /// Reads `bytes` into this frame; false (frame unusable) when they are not a JSON object.
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> Bool {
        reset()
        var scanner = JSONScanner(bytes)
        let ok = scanner.object { key, scanner in
            if key.equals("op") {
                guard let value = scanner.string() else { return scanner.skipValue() }
                envelope.op = value.equals("reply") ? .reply : value.equals("error") ? .error : value.equals("event") ? .event : .other
                return true
            }
            if key.equals("ref") {
                if let value = scanner.integer() { envelope.ref = value; return true }
                return scanner.skipValueIfPresent(depth: 1)
            }
            if key.equals("ok") {
                if let value = scanner.bool() { envelope.ok = value; return true }
                return scanner.skipValue()
            }
            if key.equals("code") {
                guard let value = scanner.string() else { return scanner.skipValue() }
                envelope.code = String(decoding: value, as: UTF8.self)
                return true
            }
            if key.equals("event") {
                guard let value = scanner.string() else { return scanner.skipValue() }
                envelope.event = Self.event(value)
                return true
            }
            if key.equals("duel_id") {
                guard let value = scanner.string() else { return scanner.skipValue() }
                envelope.duelID = value.fnv1a
                let start = value.baseAddress.map { $0 - bytes.baseAddress! } ?? 0
                envelope.duelIDRange = start..<start + value.count
                return true
            }
            if key.equals("commit_timestamp") {
                guard let value = scanner.string() else { return scanner.skipValue() }
                envelope.commitMs = Self.epochMs(value)
                return true
            }
            if key.equals("seq") {
                if let value = scanner.integer() { envelope.seq = value; return true }
                return scanner.skipValueIfPresent(depth: 1)
            }
            if key.equals("record") {
                if scanner.peek() == UInt8(ascii: "{") { return record.read(&scanner) }
                return scanner.skipValue()
            }
            return scanner.skipValue()
        }
        return ok && scanner.atEnd
    }

    private mutating func reset() {
        envelope = Envelope()
        record.reset()
    }

    /// `2026-11-21T22:40:01.123Z` in ms since 1970 (days from the civil date, as in
    /// Howard Hinnant's algorithm); nil for another shape.
    static func epochMs(_ text: UnsafeRawBufferPointer) -> Int64? {
        guard text.count == 24, text[23] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for i in range {
                guard (48...57).contains(text[i]) else { return nil }
                value = value * 10 + Int64(text[i] - 48)
            }
            return value
        }
        guard var year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), let ms = number(20..<23) else { return nil }
        year -= month <= 2 ? 1 : 0
        let era = year / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1_000 + ms
    }

    private static func event(_ value: UnsafeRawBufferPointer) -> Event {
        if value.equals("question") { return .question }
        if value.equals("answered") { return .answered }
        if value.equals("reveal") { return .reveal }
        if value.equals("complete") { return .complete }
        if value.equals("init") { return .`init` }
        return .other
    }
}

extension BotFrame.Record {
    /// Reads the `record` object the scanner is at.
    mutating func read(_ scanner: inout JSONScanner) -> Bool {
        isPresent = true
        return scanner.object(depth: 1) { key, scanner in
            if key.equals("state") {
                guard let value = scanner.string() else { return scanner.skipValue(depth: 2) }
                state = value.equals("question") ? .question : value.equals("reveal") ? .reveal
                    : value.equals("countdown") ? .countdown : value.equals("finished") ? .finished : .other
                return true
            }
            if key.equals("question_index") {
                if let value = scanner.integer() { questionIndex = value; return true }
                return scanner.skipValueIfPresent(depth: 2)
            }
            if key.equals("question") {
                if scanner.peek() == UInt8(ascii: "{") { return readQuestion(&scanner) }
                return scanner.skipValue(depth: 2)
            }
            if key.equals("answers") {
                if scanner.peek() == UInt8(ascii: "[") { return readAnswers(&scanner) }
                return scanner.skipValue(depth: 2)
            }
            if key.equals("reveal") {
                if scanner.peek() == UInt8(ascii: "{") { return readReveal(&scanner) }
                // Anything but null counts as "a reveal is there" for the early-reveal check.
                if scanner.null() { return true }
                hasReveal = true
                return scanner.skipValue(depth: 2)
            }
            if key.equals("players") {
                if scanner.peek() == UInt8(ascii: "[") { return readPlayers(&scanner) }
                return scanner.skipValue(depth: 2)
            }
            return scanner.skipValue(depth: 2)
        }
    }

    private mutating func readQuestion(_ scanner: inout JSONScanner) -> Bool {
        hasQuestion = true
        return scanner.object(depth: 2) { key, scanner in
            if key.equals("index") {
                question.index = scanner.integer()
            } else if key.equals("question_id") {
                question.questionID = scanner.integer()
            } else if key.equals("deadline_ms") {
                question.deadlineMs = scanner.integer()
            } else if key.equals("correct_choice") || key.equals("correct_choices") || key.equals("accepted")
                        || key.equals("correct_number") {
                question.hasCorrectChoice = true
            } else if key.equals("type"), let value = scanner.string() {
                question.type = value.equals("multiple") ? .multiple : value.equals("boolean") ? .boolean
                    : value.equals("text") ? .text : value.equals("number") ? .number : .single
                return true
            } else if key.equals("choices"), scanner.peek() == UInt8(ascii: "[") {
                var count = 0
                let ok = scanner.array(depth: 3) { scanner in
                    count += 1
                    return scanner.skipValue(depth: 4)
                }
                question.choiceCount = count
                return ok
            }
            return scanner.skipValueIfPresent(depth: 3)
        }
    }

    private mutating func readAnswers(_ scanner: inout JSONScanner) -> Bool {
        scanner.array(depth: 2) { scanner in
            var answer = BotFrame.Answer(player: nil, correct: false, hasChoice: false)
            guard scanner.peek() == UInt8(ascii: "{") else { return scanner.skipValue(depth: 3) }
            let ok = scanner.object(depth: 3) { key, scanner in
                if key.equals("player"), let value = scanner.string() {
                    answer.player = value.fnv1a
                    return true
                }
                if key.equals("correct"), let value = scanner.bool() {
                    answer.correct = value
                    return true
                }
                if key.equals("choice") || key.equals("choices") || key.equals("text") || key.equals("number") {
                    answer.hasChoice = true
                }
                return scanner.skipValue(depth: 4)
            }
            answers.append(answer)
            return ok
        }
    }

    private mutating func readReveal(_ scanner: inout JSONScanner) -> Bool {
        hasReveal = true
        return scanner.object(depth: 2) { key, scanner in
            if key.equals("correct_choice") {
                reveal.correctChoice = scanner.integer()
                return scanner.skipValueIfPresent(depth: 3)
            }
            if key.equals("points"), scanner.peek() == UInt8(ascii: "{") {
                return scanner.object(depth: 3) { player, scanner in
                    // A points value that is not an integer adds nothing, as `integer ?? 0` did.
                    reveal.points.append((player.fnv1a, scanner.integer() ?? 0))
                    return scanner.skipValueIfPresent(depth: 4)
                }
            }
            return scanner.skipValue(depth: 3)
        }
    }

    private mutating func readPlayers(_ scanner: inout JSONScanner) -> Bool {
        scanner.array(depth: 2) { scanner in
            guard scanner.peek() == UInt8(ascii: "{") else { return scanner.skipValue(depth: 3) }
            var player = BotFrame.PlayerScore(id: nil, score: nil)
            let ok = scanner.object(depth: 3) { key, scanner in
                if key.equals("id"), let value = scanner.string() {
                    player.id = value.fnv1a
                    return true
                }
                if key.equals("score") {
                    player.score = scanner.integer()
                    return scanner.skipValueIfPresent(depth: 4)
                }
                return scanner.skipValue(depth: 4)
            }
            players.append(player)
            return ok
        }
    }
}

extension JSONScanner {
    /// After trying to read a value as an integer: skips it if it was something else.
    /// (An integer read leaves the scanner at `,` or `}`; anything else still has its value next.)
    mutating func skipValueIfPresent(depth: Int) -> Bool {
        switch peek() {
        case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"): return true
        default: return skipValue(depth: depth)
        }
    }
}
