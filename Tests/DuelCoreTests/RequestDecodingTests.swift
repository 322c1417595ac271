import Testing
@testable import DuelCore

@Suite struct RequestDecodingTests {
    func decode(_ text: String) -> Result<RequestEnvelope, RequestDecodingFailure> {
        ClientRequest.decode(Array(text.utf8))
    }

    func code(_ text: String) -> ErrorCode? {
        if case .failure(let failure) = decode(text) { return failure.error.code }
        return nil
    }

    /// The code and the field a refusal names (its message starts `field:`).
    func failure(_ text: String) -> String? {
        guard case .failure(let failure) = decode(text) else { return nil }
        return "\(failure.error.code.rawValue) \(failure.error.message.prefix { $0 != ":" })"
    }

    func request(_ text: String) -> ClientRequest? {
        if case .success(let envelope) = decode(text) { return envelope.request }
        return nil
    }

    @Test func everyOpDecodes() {
        #expect(request(#"{"op":"signup","username":"ada.l-1_","password":"correct horse"}"#)
            == .signup(username: "ada.l-1_", password: "correct horse"))
        #expect(request(#"{"op":"login","username":"ada","password":"x"}"#) == .login(username: "ada", password: "x"))
        #expect(request(#"{"op":"auth","token":"abc"}"#) == .auth(token: "abc"))
        #expect(request(#"{"op":"logout"}"#) == .logout)
        #expect(request(#"{"op":"banks"}"#) == .banks)
        #expect(request(#"{"op":"queue","bank":"capitals"}"#) == .queue(bank: "capitals"))
        #expect(request(#"{"op":"cancel"}"#) == .cancel)
        #expect(request(#"{"op":"answer","duel_id":"d","question_index":2,"choice":1}"#)
            == .answer(duelID: "d", questionIndex: 2, submission: .choice(1)))
        #expect(request(#"{"op":"forfeit","duel_id":"d"}"#) == .forfeit(duelID: "d"))
        #expect(request(#"{"op":"resume","duel_id":"d","after_seq":0}"#) == .resume(duelID: "d", afterSeq: 0))
        #expect(request(#"{"op":"leaderboard","bank":"b"}"#) == .leaderboard(bank: "b", limit: 20))
        #expect(request(#"{"op":"leaderboard","bank":"b","limit":100}"#) == .leaderboard(bank: "b", limit: 100))
        #expect(request(#"{"op":"profile"}"#) == .profile(player: nil))
        #expect(request(#"{"op":"profile","player":"p1"}"#) == .profile(player: "p1"))
        #expect(request(#"{"op":"history","limit":5}"#) == .history(limit: 5))
        #expect(request(#"{"op":"mistakes","limit":1}"#) == .mistakes(limit: 1))
        #expect(request(#"{"op":"report","question_id":42,"reason":"two answers are right"}"#)
            == .report(questionID: 42, reason: "two answers are right"))
        #expect(request(#"{"op":"practice","bank":"b"}"#) == .practice(bank: "b", mistakes: false))
        #expect(request(#"{"op":"practice","mistakes":true}"#) == .practice(bank: nil, mistakes: true))
        #expect(code(#"{"op":"practice","mistakes":false}"#) == .badRequest)
        #expect(code(#"{"op":"practice","bank":"b","mistakes":1}"#) == .badRequest)
        // Rooms, challenges, rematch (issue 12).
        #expect(request(#"{"op":"room_create","bank":"b"}"#)
            == .roomCreate(bank: "b", questions: 10, answerMs: nil, maxPlayers: 4))
        #expect(request(#"{"op":"room_create","bank":"b","questions":20,"answer_ms":5000,"max_players":2}"#)
            == .roomCreate(bank: "b", questions: 20, answerMs: 5_000, maxPlayers: 2))
        #expect(code(#"{"op":"room_create","bank":"b","questions":0}"#) == .badRequest)
        #expect(code(#"{"op":"room_create","bank":"b","answer_ms":60001}"#) == .badRequest)
        #expect(code(#"{"op":"room_create","bank":"b","max_players":1}"#) == .badRequest)
        #expect(request(#"{"op":"room_join","code":" k7m3qx "}"#) == .roomJoin(code: "K7M3QX"))
        #expect(code(#"{"op":"room_join","code":"K7M\u0000QX"}"#) == .badRequest)
        #expect(request(#"{"op":"room_leave"}"#) == .roomLeave)
        #expect(request(#"{"op":"room_start"}"#) == .roomStart)
        #expect(request(#"{"op":"challenge","username":"ada","bank":"b"}"#) == .challenge(username: "ada", bank: "b"))
        #expect(code(#"{"op":"challenge","username":"ada"}"#) == .badRequest)
        #expect(request(#"{"op":"challenge_accept","challenge_id":"c"}"#) == .challengeAccept(challengeID: "c"))
        #expect(request(#"{"op":"challenge_decline","challenge_id":"c"}"#) == .challengeDecline(challengeID: "c"))
        #expect(request(#"{"op":"challenges"}"#) == .challenges)
        #expect(request(#"{"op":"rematch","duel_id":"d"}"#) == .rematch(duelID: "d"))
        #expect(request(#"{"op":"recorded","bank":"b"}"#) == .recorded(bank: "b"))
        #expect(code(#"{"op":"recorded"}"#) == .badRequest)
        // bank_pref_set and bank_prefs: LearningDiaryDecodingTests.
        #expect(Set(ClientRequest.ops).count == 52)
    }

    @Test func everyProgressOpDecodes() {
        #expect(request(#"{"op":"auth","token":"t","time_zone":"America/Argentina/Buenos_Aires"}"#)
            == .auth(token: "t", timeZone: "America/Argentina/Buenos_Aires"))
        #expect(request(#"{"op":"profile_update","time_zone":"Etc/GMT+5"}"#) == .profileUpdate(timeZone: "Etc/GMT+5"))
        #expect(failure(#"{"op":"profile_update","time_zone":"a b"}"#) == "bad_request time_zone")
        #expect(failure(#"{"op":"auth","token":"t","time_zone":"../x"}"#) == "bad_request time_zone")
        #expect(request(#"{"op":"goal_set","kind":"correct_answers","bank":"b","target":50}"#)
            == .goalSet(GoalDraft(kind: .correctAnswers, bank: "b", target: 50)))
        #expect(failure(#"{"op":"goal_set","kind":"wins","target":10001}"#) == "bad_request target")
        #expect(request(#"{"op":"goals"}"#) == .goals)
        #expect(request(#"{"op":"notifications"}"#) == .notifications(limit: 20, before: nil))
        #expect(request(#"{"op":"notifications","limit":5,"before":99}"#) == .notifications(limit: 5, before: 99))
        #expect(request(#"{"op":"notifications_seen","up_to":7}"#) == .notificationsSeen(upTo: 7))
        #expect(request(#"{"op":"rating_history","bank":"b"}"#) == .ratingHistory(bank: "b", limit: 100))
        #expect(request(#"{"op":"stats"}"#) == .stats(bank: nil))
        #expect(request(#"{"op":"stats","bank":"b"}"#) == .stats(bank: "b"))
        #expect(request(#"{"op":"achievements"}"#) == .achievements)
    }

    @Test func everyQuizOpDecodes() {
        #expect(request(#"{"op":"quiz_create","title":" Capitals ","theme":"Geo","difficulty":"easy"}"#)
            == .quizCreate(QuizFields(title: "Capitals", theme: "geo", difficulty: "easy")))
        #expect(request(#"{"op":"quiz_update","quiz":"quiz-1","description":"a\nb"}"#)
            == .quizUpdate(quiz: "quiz-1", QuizFields(description: "a\nb")))
        for op in ["quiz_delete", "quiz_publish", "quiz_unpublish", "quiz_questions", "quiz", "quiz_save", "quiz_unsave"] {
            #expect(request(#"{"op":""# + op + #"","quiz":"quiz-1"}"#)?.op == op)
            #expect(failure(#"{"op":""# + op + #"","quiz":5}"#) == "bad_request quiz")
        }
        #expect(request(#"{"op":"my_quizzes"}"#) == .myQuizzes)
        #expect(request(#"{"op":"library"}"#) == .library)
        #expect(request(#"{"op":"question_add","quiz":"q","type":"text","prompt":"P?","accepted":["x"]}"#)
            == .questionAdd(quiz: "q", QuestionDraft(prompt: "P?", choices: [], key: .text(accepted: ["x"], matching: .rough))))
        #expect(request(#"{"op":"question_update","question_id":7,"type":"boolean","prompt":"P","correct_choice":1}"#)
            == .questionUpdate(questionID: 7, QuestionDraft(prompt: "P", choices: ["True", "False"], key: .boolean(correct: false))))
        #expect(request(#"{"op":"question_delete","question_id":7}"#) == .questionDelete(questionID: 7))
        #expect(request(#"{"op":"catalog","search":"  ","sort":"top_rated","limit":5,"cursor":"10"}"#)
            == .catalog(CatalogQuery(sort: .topRated, limit: 5, offset: 10)))
        #expect(request(#"{"op":"rate","question_id":3,"value":-1}"#) == .rate(.question(3), value: -1))
        #expect(request(#"{"op":"rate","quiz":"q","value":0}"#) == .rate(.quiz("q"), value: 0))
        #expect(request(#"{"op":"report","quiz":"q","reason":"spam"}"#) == .reportQuiz(quiz: "q", reason: "spam"))
        #expect(failure(#"{"op":"quiz_create","title":"a\u0007b"}"#) == "bad_request title")
        #expect(failure(#"{"op":"quiz_create","title":"x","description":""# + String(repeating: "d", count: 501) + #""}"#)
            == "bad_request description")
        #expect(failure(#"{"op":"question_add","quiz":"q","type":"number","prompt":"P","correct_number":1,"matching":"exact"}"#)
            == "bad_request matching")
        #expect(failure(#"{"op":"catalog","limit":51}"#) == "bad_request limit")
        #expect(ClientRequest.questionAdd(quiz: "q", QuestionDraft(prompt: "p", choices: [], key: .number(correct: 1, tolerance: 0))).isAuthoring)
        #expect(!ClientRequest.catalog(CatalogQuery()).isAuthoring)
    }

    @Test func refsAreEchoedAsGiven() {
        guard case .success(let a) = decode(#"{"op":"banks","ref":7}"#),
              case .success(let b) = decode(#"{"op":"banks","ref":"x-1"}"#),
              case .success(let c) = decode(#"{"op":"banks"}"#)
        else { Issue.record("did not decode"); return }
        #expect(a.ref == .int(7))
        #expect(b.ref == .string("x-1"))
        #expect(c.ref == nil)
        // The ref survives a failure so the error can carry it.
        guard case .failure(let failure) = decode(#"{"op":"nope","ref":9}"#) else { Issue.record("decoded"); return }
        #expect(failure.ref == .int(9))
        #expect(ServerMessage.error(ref: failure.ref, failure.error)
            == #"{"op":"error","ref":9,"code":"unknown_op","message":"unknown op 'nope'"}"#)
    }

    @Test(arguments: [
        "", "{", "nope", "[1,2]", "\"op\"", "42", "null", #"{"op":"banks"} x"#, #"{"op":"banks",}"#,
        #"{'op':'banks'}"#, "{\"op\":\"ba\u{01}nks\"}", String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func malformedJSONIsBadJSON(text: String) {
        #expect(code(text) == .badJSON)
    }

    @Test func nestingOf32LevelsIsReadAnd33IsBadJSON() {
        func nested(_ depth: Int) -> String {
            #"{"op":"banks","x":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        }
        #expect(request(nested(32)) == .banks)
        #expect(code(nested(33)) == .badJSON)
    }

    @Test func aRefWrittenAsAFractionOrExponentIsBadRequestWithoutRef() {
        for text in [#"{"op":"banks","ref":1.0}"#, #"{"op":"banks","ref":1e2}"#] {
            guard case .failure(let failure) = decode(text) else {
                Issue.record("\(text) decoded")
                continue
            }
            #expect(failure.error.code == .badRequest && failure.ref == nil, "\(text)")
        }
    }

    @Test func invalidUTF8IsBadJSON() {
        #expect(ClientRequest.decode([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]).failureCode == .badJSON)
    }

    @Test func unknownOpsAreUnknownOp() {
        #expect(code(#"{"op":"fly"}"#) == .unknownOp)
        #expect(code(#"{"op":""}"#) == .unknownOp)
        #expect(code(#"{"op":"BANKS"}"#) == .unknownOp)
    }

    @Test(arguments: [
        (#"{}"#, "op"),
        (#"{"op":3}"#, "op"),
        (#"{"op":"banks","ref":{}}"#, "ref"),
        (#"{"op":"banks","ref":1.5}"#, "ref"),
        (#"{"op":"queue"}"#, "bank"),
        (#"{"op":"queue","bank":7}"#, "bank"),
        (#"{"op":"answer","duel_id":"d","question_index":"0","choice":1}"#, "question_index"),
        (#"{"op":"answer","duel_id":"d","question_index":0}"#, "choice"),
        (#"{"op":"answer","duel_id":"d","question_index":0,"choice":1.5}"#, "choice"),
        (#"{"op":"answer","duel_id":"d","question_index":-1,"choice":1}"#, "question_index"),
        (#"{"op":"answer","duel_id":"d","question_index":0,"choice":99999999999}"#, "choice"),
        (#"{"op":"answer","question_index":0,"choice":1}"#, "duel_id"),
        (#"{"op":"resume","duel_id":"d","after_seq":-1}"#, "after_seq"),
        (#"{"op":"leaderboard","bank":"b","limit":0}"#, "limit"),
        (#"{"op":"leaderboard","bank":"b","limit":101}"#, "limit"),
        (#"{"op":"history","limit":true}"#, "limit"),
        (#"{"op":"report","question_id":1,"reason":""}"#, "reason"),
        // 300 characters but 600 code points: Postgres's limit of 500 counts code points.
        (#"{"op":"report","question_id":1,"reason":""# + String(repeating: "👍🏽", count: 300) + #""}"#, "reason"),
        (#"{"op":"report","question_id":1,"reason":"bell \u0007 rings"}"#, "reason"),
        (#"{"op":"report","question_id":1,"reason":"two\nlines"}"#, "reason"),
        (#"{"op":"report","reason":"x"}"#, "question_id"),
        (#"{"op":"signup","username":"ab","password":"long enough"}"#, "username"),
        (#"{"op":"signup","username":"has space","password":"long enough"}"#, "username"),
        (#"{"op":"signup","username":"émile","password":"long enough"}"#, "username"),
        (#"{"op":"login","username":"ada"}"#, "password"),
        // libpq would cut the name at the NUL: the lookup and the throttle would disagree.
        (#"{"op":"login","username":"ada\u0000x","password":"whatever1"}"#, "username"),
        (#"{"op":"login","username":"ada\u001b[2J","password":"whatever1"}"#, "username"),
        (#"{"op":"auth","token":null}"#, "token"),
    ])
    func illTypedFieldsAreBadRequestNamingTheField(text: String, field: String) {
        guard case .failure(let failure) = decode(text) else { Issue.record("decoded \(text)"); return }
        #expect(failure.error.code == .badRequest)
        #expect(failure.error.message.hasPrefix(field + ":"), "\(failure.error.message)")
    }

    @Test func shortPasswordsAreWeak() {
        #expect(code(#"{"op":"signup","username":"ada","password":"1234567"}"#) == .weakPassword)
        #expect(code(#"{"op":"signup","username":"ada","password":"12345678"}"#) == nil)
        let long = String(repeating: "x", count: 257)
        #expect(code(#"{"op":"signup","username":"ada","password":""# + long + #""}"#) == .weakPassword)
    }

    @Test func unknownFieldsAreIgnoredAndIntegralDoublesAccepted() {
        #expect(request(#"{"op":"answer","duel_id":"d","question_index":1.0,"choice":0,"score":999,"at_ms":0}"#)
            == .answer(duelID: "d", questionIndex: 1, submission: .choice(0)))
    }

    @Test func answersOfEveryType() {
        let head = #"{"op":"answer","duel_id":"d","question_index":0,"#
        #expect(request(head + #""choices":[2,0]}"#) == .answer(duelID: "d", questionIndex: 0, submission: .choices([2, 0])))
        #expect(request(head + #""text":" Café "}"#) == .answer(duelID: "d", questionIndex: 0, submission: .text(" Café ")))
        #expect(request(head + #""number":-3.25}"#) == .answer(duelID: "d", questionIndex: 0, submission: .number(-3.25)))
        #expect(request(head + #""number":206}"#) == .answer(duelID: "d", questionIndex: 0, submission: .number(206)))
        // Empty choices decode: whether they fit is the question's check (`choices: pick at least one`).
        #expect(request(head + #""choices":[]}"#) == .answer(duelID: "d", questionIndex: 0, submission: .choices([])))
        // Exactly one answer field, each well typed; every refusal names its field.
        #expect(failure(head + #""choice":1,"text":"x"}"#) == "bad_request text")
        #expect(failure(head + #""duel":1}"#) == "bad_request choice")
        #expect(failure(head + #""choices":[1,"a"]}"#) == "bad_request choices")
        #expect(failure(head + #""choices":[-1]}"#) == "bad_request choices")
        #expect(failure(head + #""choices":2}"#) == "bad_request choices")
        #expect(failure(head + #""choices":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}"#) == "bad_request choices")
        #expect(failure(head + #""text":5}"#) == "bad_request text")
        #expect(failure(head + #""text":""# + String(repeating: "é", count: 201) + #""}"#) == "bad_request text")
        #expect(failure(head + #""text":"a\u0000b"}"#) == "bad_request text")
        #expect(failure(head + #""number":"3"}"#) == "bad_request number")
        #expect(failure(head + #""number":1e999}"#)?.hasPrefix("bad_json") == true)
    }

    @Test func onlyFourOpsNeedNoLogin() {
        let anonymous = [ClientRequest.signup(username: "a", password: "b"), .login(username: "a", password: "b"), .auth(token: "t"), .banks]
        #expect(anonymous.allSatisfy { $0.allowedAnonymously })
        #expect(!ClientRequest.queue(bank: "b").allowedAnonymously)
        #expect(!ClientRequest.logout.allowedAnonymously)
    }

    @Test func everyErrorCodeHasAStableName() {
        #expect(ErrorCode.allCases.count == 35)
        #expect(ErrorCode.allCases.map(\.rawValue).contains("not_owner"))
        #expect(ErrorCode.allCases.map(\.rawValue).contains("room_too_small"))
        #expect(ErrorCode.allCases.map(\.rawValue).contains("account_disabled"))
        #expect(ErrorCode.allCases.map(\.rawValue).contains("already_queued"))
        #expect(ErrorCode.allCases.allSatisfy { !$0.defaultMessage.isEmpty })
    }
}

@Suite struct JSONTests {
    @Test func parsesAndSerializesRoundTrip() throws {
        let text = #"{"a":[1,-2,3.5,true,false,null],"b":{"c":"d\"e\\f\n\u00e9\ud83d\ude00"},"e":1e3}"#
        let value = try JSONParser.parse(text)
        #expect(value["a"] == [1, -2, 3.5, true, false, nil] as JSONValue)
        #expect(value["b"]?["c"] == .string("d\"e\\f\né😀"))
        #expect(value["e"] == .double(1000))
        let again = try JSONParser.parse(value.serialized)
        #expect(again == value)
        #expect(JSONValue.string("\u{01}").serialized == #""\u0001""#)
    }

    @Test func rejectsLoneSurrogatesAndLeadingZeros() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(#""\ud83d""#) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("01") }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("1.") }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("-") }
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var generator = SplitMix(seed: 42)
        let alphabet = Array(#"{}[]":,0123456789.-eE tfnrulasop\"#.utf8) + [0x00, 0xFF, 0xC3, 0xA9]
        for _ in 0..<5_000 {
            let count = Int(generator.next() % 64)
            let bytes = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            _ = ClientRequest.decode(bytes)
        }
    }
}

extension Result where Success == RequestEnvelope, Failure == RequestDecodingFailure {
    var failureCode: ErrorCode? {
        if case .failure(let failure) = self { return failure.error.code }
        return nil
    }
}
