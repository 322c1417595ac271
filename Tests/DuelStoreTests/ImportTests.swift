import TestSupport
import DuelStore
import Testing

/// The operator functions of sql/migrations/002_operator.sql, called as an operator would.
@Suite struct ImportTests {
    let connection: PGConnection

    init() throws {
        connection = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        try connection.query("SELECT ops.create_bank('quiz', 'Quiz')")
    }

    func count() throws -> Int {
        try connection.query("SELECT count(*) AS n FROM questions")[0].int("n")
    }

    func importQuiz(_ json: String) throws -> Int {
        try connection.query("SELECT ops.import_quiz('quiz', \(json)::jsonb) AS n")[0].int("n")
    }

    func importTrivia(_ json: String) throws -> Int {
        try connection.query("SELECT ops.import_opentdb('quiz', \(json)::jsonb) AS n")[0].int("n")
    }

    @Test func aGoodQuizFileLandsWhole() throws {
        let n = try importQuiz("""
            {"numberOfQuestions":2,"topic":"General","questions":[
             {"number":1,"questionSentence":"What is the capital of USA?","options":{"A":"Rome","B":"London","C":"D.C.","D":"New York"},"correctOption":"C"},
             {"number":2,"questionSentence":"2 + 2?","options":{"A":"3","B":"4"},"correctOption":"b"}]}
            """)
        #expect(n == 2)
        let rows = try connection.query("SELECT prompt, choices, correct_choice FROM questions ORDER BY id")
        #expect(try rows[0].textArray("choices") == ["Rome", "London", "D.C.", "New York"])
        #expect(try rows[0].int("correct_choice") == 2)
        #expect(try rows[1].int("correct_choice") == 1)
    }

    @Test(arguments: [
        (#"[]"#, "quiz: the file must be a JSON object"),
        (#"{"questions":{}}"#, #"quiz: "questions" must be an array"#),
        (#"{"numberOfQuestions":3,"questions":[]}"#, "numberOfQuestions"),
        (#"{"questions":[]}"#, "quiz: no questions"),
        (#"{"questions":[GOOD,{"number":2,"options":{"A":"x","B":"y"},"correctOption":"A"}]}"#, #"question 2: "questionSentence""#),
        (#"{"questions":[GOOD,{"number":2,"questionSentence":"q","options":["x","y"],"correctOption":"A"}]}"#, #"question 2: "options" must be an object"#),
        (#"{"questions":[GOOD,{"number":2,"questionSentence":"q","options":{"A":"x","C":"y"},"correctOption":"A"}]}"#, "without gaps"),
        (#"{"questions":[GOOD,{"number":2,"questionSentence":"q","options":{"A":"x","B":"X "},"correctOption":"A"}]}"#, "distinct"),
        (#"{"questions":[GOOD,{"number":2,"questionSentence":"q","options":{"A":"x"},"correctOption":"A"}]}"#, "2 to 6"),
        (#"{"questions":[GOOD,{"number":2,"questionSentence":"q","options":{"A":"x","B":""},"correctOption":"A"}]}"#, "non-empty"),
        (#"{"questions":[GOOD,{"number":7,"questionSentence":"q","options":{"A":"x","B":"y"},"correctOption":"E"}]}"#, #"question 7: "correctOption""#),
        (#"{"questions":[GOOD,{"number":2,"questionSentence":"q","options":{"A":"x","B":"y"}}]}"#, "correctOption"),
    ])
    func aMalformedQuizFileLandsNothingAndNamesTheDefect(json: String, defect: String) throws {
        let good = #"{"number":1,"questionSentence":"ok?","options":{"A":"yes","B":"no"},"correctOption":"A"}"#
        let error = #expect(throws: PGError.self) { try importQuiz(json.replacingOccurrences(of: "GOOD", with: good)) }
        #expect(error?.message.contains(defect) == true, "\(error?.message ?? "")")
        #expect(try count() == 0)
    }

    @Test func anOpenTriviaResponseLandsDecodedAndShuffled() throws {
        let n = try importTrivia("""
            {"response_code":0,"results":[
             {"type":"multiple","difficulty":"easy","category":"General Knowledge",
              "question":"Which of these is &quot;Shakespeare&#039;s&quot; play?","correct_answer":"Hamlet",
              "incorrect_answers":["Faust","Caf&eacute; Society","Ulysses"]},
             {"type":"boolean","difficulty":"easy","category":"Science","question":"The Sun is a star.",
              "correct_answer":"True","incorrect_answers":["False"]}]}
            """)
        #expect(n == 2)
        let rows = try connection.query("SELECT prompt, choices, correct_choice, source FROM questions ORDER BY id")
        #expect(try rows[0].string("prompt") == "Which of these is \"Shakespeare's\" play?")
        let choices = try rows[0].textArray("choices")
        #expect(Set(choices) == ["Hamlet", "Faust", "Café Society", "Ulysses"])
        #expect(choices[try rows[0].int("correct_choice")] == "Hamlet")
        #expect(try rows[1].textArray("choices")[try rows[1].int("correct_choice")] == "True")
        #expect(try rows[0].string("source") == "opentdb")
    }

    @Test func triviaChoicesAreReallyShuffled() throws {
        var positions = Set<Int>()
        for _ in 0..<12 {
            _ = try importTrivia("""
                {"response_code":0,"results":[{"type":"multiple","question":"q","correct_answer":"right",
                 "incorrect_answers":["a","b","c"]}]}
                """)
        }
        for row in try connection.query("SELECT correct_choice FROM questions") { positions.insert(try row.int("correct_choice")) }
        #expect(positions.count > 1)
    }

    @Test(arguments: [
        (#"{"response_code":1,"results":[]}"#, "response_code"),
        (#"{"response_code":0,"results":{}}"#, "results"),
        (#"{"response_code":0,"results":[OK,{"type":"essay","question":"q","correct_answer":"a","incorrect_answers":["b"]}]}"#, #"result 2: "type""#),
        (#"{"response_code":0,"results":[OK,{"type":"multiple","question":"","correct_answer":"a","incorrect_answers":["b"]}]}"#, #"result 2: "question""#),
        (#"{"response_code":0,"results":[OK,{"type":"multiple","question":"q","correct_answer":1,"incorrect_answers":["b"]}]}"#, #"result 2: "correct_answer""#),
        (#"{"response_code":0,"results":[OK,{"type":"multiple","question":"q","correct_answer":"a","incorrect_answers":"b"}]}"#, #"result 2: "incorrect_answers""#),
        (#"{"response_code":0,"results":[OK,{"type":"multiple","question":"q","correct_answer":"a","incorrect_answers":["a"]}]}"#, "result 2: the answers"),
    ])
    func aMalformedTriviaResponseLandsNothing(json: String, defect: String) throws {
        let ok = #"{"type":"boolean","question":"ok?","correct_answer":"True","incorrect_answers":["False"]}"#
        let error = #expect(throws: PGError.self) { try importTrivia(json.replacingOccurrences(of: "OK", with: ok)) }
        #expect(error?.message.contains(defect) == true, "\(error?.message ?? "")")
        #expect(try count() == 0)
    }

    @Test func operatorsAddDeactivateAndReactivateQuestions() throws {
        let id = try connection.query("SELECT ops.add_question('quiz', 'Largest ocean?', ARRAY['Atlantic','Pacific','Indian'], 'B') AS id")[0].int64("id")
        _ = try connection.query("SELECT ops.add_question('quiz', 'Smallest prime?', ARRAY['1','2','3'], 1)")
        #expect(try connection.bank(slug: "quiz")?.questions == 2)
        try connection.query("SELECT ops.deactivate_question(\(id))")
        #expect(try connection.bank(slug: "quiz")?.questions == 1)
        try connection.query("SELECT ops.reactivate_question(\(id))")
        #expect(try connection.bank(slug: "quiz")?.questions == 2)
        #expect(throws: PGError.self) { try connection.query("SELECT ops.add_question('quiz', 'q', ARRAY['a','b'], 'C')") }
        #expect(throws: PGError.self) { try connection.query("SELECT ops.add_question('nope', 'q', ARRAY['a','b'], 'A')") }
        #expect(throws: PGError.self) { try connection.query("SELECT ops.deactivate_question(999999)") }
        let stats = try connection.query("SELECT times_asked, open_reports FROM ops.question_stats WHERE question_id = \(id)")
        #expect(try stats[0].int("times_asked") == 0)
    }

    @Test func theOperatorRoleManagesBanksButCannotSeePlayers() throws {
        try connection.query("SELECT ops.add_question('quiz', 'Largest ocean?', ARRAY['Atlantic','Pacific'], 'B')")
        try connection.transaction { connection in
            try connection.execute(script: "SET LOCAL ROLE quizduel_operator")
            #expect(try connection.query("SELECT count(*) AS n FROM ops.question_stats")[0].int("n") == 1)
            _ = try connection.query("SELECT ops.add_question('quiz', 'Deepest trench?', ARRAY['Mariana','Tonga'], 'A')")
        }
        try connection.execute(script: "BEGIN; SET LOCAL ROLE quizduel_operator")
        #expect(throws: PGError.self) { try connection.query("SELECT * FROM players") }
        try connection.execute(script: "ROLLBACK; BEGIN; SET LOCAL ROLE quizduel_operator")
        #expect(throws: PGError.self) { try connection.query("SELECT * FROM duels") }
        try connection.execute(script: "ROLLBACK")
    }
}
