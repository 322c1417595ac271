import TestSupport
import DuelStore
import Foundation
import Testing

/// The operator functions of sql/migrations/002_operator.sql, called as an operator would.
@Suite struct ImportTests {
    let connection: PGConnection
    let conninfo: String

    init() throws {
        conninfo = try TestPostgres.migratedDatabase(seed: false)
        connection = try PGConnection(conninfo)
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
        // A different prompt each time: the same question again would be skipped as a duplicate.
        for attempt in 0..<12 {
            _ = try importTrivia("""
                {"response_code":0,"results":[{"type":"multiple","question":"q\(attempt)","correct_answer":"right",
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
        #expect(try QuizRepository(connection).bank(slug: "quiz")?.questions == 2)
        try connection.query("SELECT ops.deactivate_question(\(id))")
        #expect(try QuizRepository(connection).bank(slug: "quiz")?.questions == 1)
        try connection.query("SELECT ops.reactivate_question(\(id))")
        #expect(try QuizRepository(connection).bank(slug: "quiz")?.questions == 2)
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

    // Question types (migration 013) ----------------------------------------------------------

    func keys() throws -> [String] {
        try connection.query("SELECT type || ' ' || ops.question_key(q) AS k FROM questions q ORDER BY id").map {
            try $0.string("k")
        }
    }

    func failure(_ sql: SQLQuery) -> String {
        do {
            try connection.query(sql)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func addQuestionTakesEveryType() throws {
        try connection.query("SELECT ops.add_question('quiz', 'Noble?', p_type => 'multiple', p_answer => 'A|C', p_choices => ARRAY['Ne','Fe','Ar'])")
        try connection.query("SELECT ops.add_question('quiz', 'Wet?', p_type => 'boolean', p_answer => 'TRUE')")
        try connection.query("SELECT ops.add_question('quiz', 'France?', p_type => 'text', p_answer => 'Paris|Paname', p_matching => 'exact')")
        try connection.query("SELECT ops.add_question('quiz', 'Pi?', p_type => 'number', p_answer => '3.14', p_tolerance => 0.01)")
        try connection.query("SELECT ops.add_question('quiz', 'Old?', ARRAY['a','b'], 'B')")
        #expect(try keys() == ["multiple A|C", "boolean true", "text Paris|Paname (exact)", "number 3.14 ± 0.01", "single B"])
        #expect(try connection.query("SELECT choices FROM questions WHERE type = 'boolean'")[0].textArray("choices") == ["True", "False"])
    }

    @Test(arguments: [
        ("p_type => 'text', p_answer => '  |  '", "question, answer: the accepted answers must be"),
        ("p_type => 'number', p_answer => 'twelve'", "question, answer: must be a number"),
        ("p_type => 'number', p_answer => '1', p_tolerance => -1", "question, answer: tolerance must be"),
        ("p_type => 'boolean', p_answer => 'yes'", "question, answer: must be true or false"),
        ("p_type => 'multiple', p_answer => 'A|D', p_choices => ARRAY['a','b','c']", "question, answer: correct answer \"D\" is out of range"),
        ("p_type => 'multiple', p_answer => 'A|a', p_choices => ARRAY['a','b','c']", "question, answer: the right choices must be distinct"),
        ("p_type => 'text', p_answer => 'x', p_choices => ARRAY['a','b']", "question, choices: a text question has none"),
        ("p_type => 'text', p_answer => 'x', p_tolerance => 1", "question, tolerance: only for number questions"),
        ("p_type => 'single', p_answer => 'A', p_choices => ARRAY['a','b'], p_matching => 'rough'", "question, matching: only for text questions"),
        ("p_type => 'essay', p_answer => 'A'", "question, type: must be single, multiple, boolean, text or number"),
    ])
    func badKeysNameTheFieldAndAddNothing(arguments: String, message: String) throws {
        let error = failure("SELECT ops.add_question('quiz', 'Q?', \(unsafeRaw: arguments))")
        #expect(error.contains(message), "\(error)")
        #expect(try count() == 0)
    }

    @Test func theTableRefusesKeysThatDoNotFitTheType() throws {
        let bank = "(SELECT id FROM banks WHERE slug = 'quiz')"
        for values in [
            "'text', '{}', 0, NULL, '{Paris}', 'rough', NULL, NULL",        // a choice on a text question
            "'text', '{}', NULL, NULL, '{Paris}', NULL, NULL, NULL",       // no matching
            "'multiple', '{a,b}', NULL, '{0,0}', NULL, NULL, NULL, NULL",  // repeated choice
            "'boolean', '{Yes,No}', 0, NULL, NULL, NULL, NULL, NULL",      // not True/False
            "'number', '{}', NULL, NULL, NULL, NULL, 'NaN', 0",            // not a number
            "'number', '{a,b}', NULL, NULL, NULL, NULL, 1, 0",             // choices on a number question
        ] {
            let error = failure("""
                INSERT INTO questions (bank_id, type, choices, correct_choice, correct_choices, accepted, matching,
                                       correct_number, tolerance, prompt)
                VALUES (\(unsafeRaw: bank), \(unsafeRaw: values), 'Q?')
                """)
            #expect(error.contains("violates check constraint"), "\(values): \(error)")
        }
    }

    @Test func aCSVFileOfEveryTypeLandsWhole() throws {
        let csv = "type,prompt,choices,answer,matching,tolerance\r\n"
            + "single,\"Capital, of Peru?\",Lima|Quito|Bogotá,A,,\r\n"
            + "multiple,Which are noble gases?,Neon|Iron|Argon,A|C,,\n"
            + "\n"
            + "boolean,\"Water \"\"boils\"\"\nat 100 °C\",,true,,\n"
            + "text,Chemical symbol of gold?,,Au,exact,\n"
            + ",Bones in an adult?,a|b,B,,\n"
            + "number,How many bones?,,206,,0.5"
        #expect(try connection.query("SELECT ops.import_csv('quiz', \(csv)) AS n")[0].int("n") == 6)
        #expect(try keys() == ["single A", "multiple A|C", "boolean true", "text Au (exact)", "single B", "number 206 ± 0.5"])
        let prompts = try connection.query("SELECT prompt, source FROM questions ORDER BY id")
        #expect(try prompts[0].string("prompt") == "Capital, of Peru?")
        #expect(try prompts[2].string("prompt") == "Water \"boils\"\nat 100 °C")
        #expect(try prompts[0].string("source") == "csv")
    }

    /// Issue 23: an import added a question a second time when the bank already held the same
    /// prompt and key. Now each is skipped, reported (a NOTICE naming its line) and not counted.
    @Test func importsSkipQuestionsTheBankAlreadyHas() throws {
        let csv = "type,prompt,choices,answer\n"
            + "single,Capital of Peru?,Lima|Quito|Bogotá,A\n"
            + "text,Chemical symbol of gold?,,Au\n"
        #expect(try connection.query("SELECT ops.import_csv('quiz', \(csv)) AS n")[0].int("n") == 2)
        // Again, with the choices in another order, other spacing and case, and one new question.
        let again = "type,prompt,choices,answer\n"
            + "single,capital of peru? ,Quito|Lima|Bogotá,B\n"
            + "text,Chemical symbol of gold?,,au\n"
            + "number,How many bones?,,206\n"
        // As an operator runs it, in psql: the count added, and a notice per skipped line.
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", conninfo, "-XAtv", "ON_ERROR_STOP=1", "-c",
                          "SELECT ops.import_csv('quiz', '\(again.replacingOccurrences(of: "'", with: "''"))')"]
        let output = Pipe(), errors = Pipe()
        psql.standardOutput = output
        psql.standardError = errors
        try psql.run()
        psql.waitUntilExit()
        let added = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let notices = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(psql.terminationStatus == 0 && added.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(added)")
        #expect(notices.contains("line 2: skipped, the bank already has this question")
                    && notices.contains("line 3: skipped"), "\(notices)")
        #expect(try count() == 3)
        // The same in a quiz file, and one question added by hand again.
        let quiz = #"{"questions":[{"questionSentence":"Capital of Peru?","options":{"A":"Lima","B":"Quito"},"correctOption":"A"}]}"#
        #expect(try importQuiz(quiz) == 0)
        #expect(try connection.query("""
            SELECT ops.add_question('quiz', 'How many bones?', p_type => 'number', p_answer => '206') IS NULL AS skipped
            """)[0].bool("skipped"))
        #expect(try count() == 3)
        // A different answer is a different question.
        #expect(try connection.query("""
            SELECT ops.add_question('quiz', 'How many bones?', p_type => 'number', p_answer => '207') IS NULL AS skipped
            """)[0].bool("skipped") == false)
    }

    @Test(arguments: [
        ("prompt,answer,colour\nQ,A,red", "line 1, header: unknown column \"colour\""),
        ("type,answer\nsingle,A", "line 1, header: the columns prompt and answer are required"),
        ("prompt,answer,answer\nQ,A,A", "line 1, header: a column is named twice"),
        ("type,prompt,answer\ntext,Q1,x\nQ2", "line 3: 1 fields, but the header names 3"),
        ("type,prompt,answer,choices\nsingle,Q1,A,a|b\nnumber,Q2,ten,", "line 3, answer: must be a number"),
        ("type,prompt,answer,choices\nsingle,Q1,A,a|b\n\nsingle,Q2,A,a", "line 4, choices: must be 2 to 6"),
        ("type,prompt,answer,tolerance\nnumber,Q1,1,lots", "line 2, tolerance: must be a number"),
        ("prompt,answer\n\"Q1,A", "line 2: a quoted field is not closed"),
        ("prompt,answer\n", "csv: no questions after the header"),
        ("type,prompt,answer\ntext,,Paris", "line 2, prompt: must not be empty"),
    ])
    func aBadCSVNamesTheLineAndFieldAndImportsNothing(csv: String, message: String) throws {
        let error = failure("SELECT ops.import_csv('quiz', \(csv))")
        #expect(error.contains(message), "\(error)")
        #expect(try count() == 0)
    }

    @Test func openTriviaBooleansBecomeBooleanQuestions() throws {
        _ = try importTrivia("""
            {"response_code":0,"results":[
             {"type":"boolean","difficulty":"easy","category":"Science","question":"The sun is a star.","correct_answer":"True","incorrect_answers":["False"]},
             {"type":"boolean","difficulty":"easy","category":"Science","question":"Bats are birds.","correct_answer":"False","incorrect_answers":["True"]}]}
            """)
        #expect(try keys() == ["boolean true", "boolean false"])
    }

    @Test func editingAQuestionIntoAnotherTypeKeepsTheOldVersion() throws {
        let old = try connection.query("SELECT ops.add_question('quiz', 'France?', ARRAY['Paris','Rome'], 'A') AS id")[0].int64("id")
        let new = try connection.query("SELECT ops.edit_question(\(old), 'Capital of France?', p_type => 'text', p_answer => 'Paris') AS id")[0].int64("id")
        #expect(try keys() == ["single A", "text Paris (rough)"])
        let rows = try connection.query("SELECT id, active, replaced_by FROM questions ORDER BY id")
        #expect(try rows[0].bool("active") == false && rows[0].int64("replaced_by") == new)
        #expect(try rows[1].bool("active"))
    }

    @Test func aQuizFileTakesEveryType() throws {
        let n = try importQuiz("""
            {"questions":[
             {"questionSentence":"Single?","options":{"A":"a","B":"b"},"correctOption":"b"},
             {"type":"multiple","questionSentence":"Several?","options":{"A":"a","B":"b","C":"c"},"correctOption":["A","c"]},
             {"type":"multiple","questionSentence":"Several again?","options":{"A":"a","B":"b"},"correctOption":"A, B"},
             {"type":"boolean","questionSentence":"True?","correctOption":false},
             {"type":"text","questionSentence":"Typed?","answers":["Paris","Paname"],"matching":"case_insensitive"},
             {"type":"number","questionSentence":"Pi?","answer":3.14,"tolerance":0.005}]}
            """)
        #expect(n == 6)
        #expect(try keys() == ["single B", "multiple A|C", "multiple A|B", "boolean false",
                               "text Paris|Paname (case_insensitive)", "number 3.14 ± 0.005"])
        for (item, defect) in [
            (#"{"type":"number","questionSentence":"N?","answer":"3"}"#, #"question 1: "answer" must be a number"#),
            (#"{"type":"text","questionSentence":"T?","answers":"Paris"}"#, #"question 1: "answers" must be an array"#),
            (#"{"type":"single","questionSentence":"S?","options":{"A":"a","B":"b"},"correctOption":"A,B"}"#,
             #"question 1: "correctOption" must be one of"#),
            (#"{"type":"boolean","questionSentence":"B?","correctOption":"maybe"}"#, "question 1, answer: must be true or false"),
            (#"{"type":"essay","questionSentence":"E?"}"#, "question 1, type: must be single"),
        ] {
            let error = failure("SELECT ops.import_quiz('quiz', \(#"{"questions":["# + item + "]}")::jsonb)")
            #expect(error.contains(defect), "\(error)")
        }
        #expect(try count() == 6)
    }
}
