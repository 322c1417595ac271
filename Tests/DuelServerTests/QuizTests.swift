import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// Quizzes players make (issue 13): authoring ops and every refusal, privacy and
    /// publishing, the catalog, libraries, votes, reports, matchmaking promotion, caps and the
    /// authoring rate limit, and edits that never rewrite past games.
    @Suite(.serialized) struct QuizTests {
        let server: TestServer

        init() throws {
            server = try TestServer.start {
                $0.social.authoringPerMinute = 1_000
                // The caps test writes 250 times in a row: more than a connection's message rate.
                $0.limits.messagesPerSecond = 10_000
                $0.limits.messageBurst = 10_000
            }
        }

        /// `data` of a request that must succeed.
        @discardableResult
        func ok(_ player: TestPlayer, _ op: String, _ fields: JSONObject = [:],
                sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
            let reply = try await player.client.request(op, fields)
            #expect(reply["ok"] == true, "\(op): \(reply.serialized)", sourceLocation: sourceLocation)
            return reply["data"] ?? .null
        }

        /// The error code of a request that must fail, and the field its message names.
        func refusal(_ player: TestPlayer, _ op: String, _ fields: JSONObject = [:]) async throws -> String {
            let reply = try await player.client.request(op, fields)
            let code = reply["code"]?.string ?? "ok"
            guard code == "bad_request", let message = reply["message"]?.string else { return code }
            return "bad_request " + message.prefix { $0 != ":" }
        }

        /// A quiz of three single-choice questions ("Q1?"…, right answer "yes"), by `owner`.
        func quiz(_ owner: TestPlayer, title: String = "Capitals of Africa") async throws -> String {
            let created = try await ok(owner, "quiz_create", ["title": .string(title), "theme": "Geography", "difficulty": "easy"])
            let slug = created["quiz"]?["quiz"]?.string ?? ""
            for n in 1...3 {
                try await ok(owner, "question_add", ["quiz": .string(slug), "type": "single", "prompt": .string("Q\(n)?"),
                                                      "choices": ["yes", "no", "maybe"], "correct_choice": 0])
            }
            return slug
        }

        func count(_ value: JSONValue?) -> Int {
            if case .array(let items)? = value { return items.count }
            return -1
        }

        @Test func authoringEveryTypeAndEveryRefusal() async throws {
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let created = try await ok(a, "quiz_create", ["title": "  Mixed  ", "description": "All five\ntypes",
                                                           "theme": "Science", "difficulty": "medium"])
            let record = created["quiz"]
            let slug = record?["quiz"]?.string ?? ""
            #expect(slug.hasPrefix("quiz-"))
            #expect(record?["title"] == "Mixed" && record?["theme"] == "science" && record?["published"] == false)
            #expect(record?["owner"]?["id"] == .string(a.id) && record?["questions"] == 0)
            let q: JSONObject = ["quiz": .string(slug)]
            func with(_ extra: JSONObject) -> JSONObject {
                var fields = q
                for (key, value) in extra.pairs { fields[key] = value }
                return fields
            }
            // Every type, with its key in the reveal's names.
            let single = try await ok(a, "question_add", with(["type": "single", "prompt": "One?", "choices": ["a", "b"], "correct_choice": 1]))
            #expect(single["question"]?["correct_choice"] == 1 && single["question"]?["type"] == "single")
            let multiple = try await ok(a, "question_add", with(["type": "multiple", "prompt": "Some?", "choices": ["a", "b", "c"], "correct_choices": [2, 0]]))
            #expect(multiple["question"]?["correct_choices"] == [0, 2])
            let boolean = try await ok(a, "question_add", with(["type": "boolean", "prompt": "True?", "correct_choice": 1]))
            #expect(boolean["question"]?["choices"] == ["True", "False"])
            let text = try await ok(a, "question_add", with(["type": "text", "prompt": "Name?", "accepted": ["Ada", "Ada Lovelace"], "matching": "case_insensitive"]))
            #expect(text["question"]?["accepted"] == ["Ada", "Ada Lovelace"] && text["question"]?["matching"] == "case_insensitive")
            let number = try await ok(a, "question_add", with(["type": "number", "prompt": "Pi?", "correct_number": 3.14, "tolerance": 0.01]))
            #expect(number["question"]?["correct_number"] == .double(3.14) && number["question"]?["tolerance"] == .double(0.01))
            let listed = try await ok(a, "quiz_questions", q)
            #expect(count(listed["questions"]) == 5 && listed["quiz"]?["questions"] == 5)

            // Every field is checked, and the refusal names it.
            let bad: [(JSONObject, String)] = [
                (["type": "essay", "prompt": "x"], "bad_request type"),
                (["type": "single", "prompt": "   ", "choices": ["a", "b"], "correct_choice": 0], "bad_request prompt"),
                (["type": "single", "prompt": .string(String(repeating: "p", count: 301)), "choices": ["a", "b"], "correct_choice": 0], "bad_request prompt"),
                (["type": "single", "prompt": "x", "choices": ["a"], "correct_choice": 0], "bad_request choices"),
                (["type": "single", "prompt": "x", "choices": ["a", "A "], "correct_choice": 0], "bad_request choices"),
                (["type": "single", "prompt": "x", "choices": ["a", "b"], "correct_choice": 2], "bad_request correct_choice"),
                (["type": "single", "prompt": "x", "choices": ["a", "b"], "correct_choice": 0, "accepted": ["a"]], "bad_request accepted"),
                (["type": "multiple", "prompt": "x", "choices": ["a", "b"], "correct_choices": [1, 1]], "bad_request correct_choices"),
                (["type": "multiple", "prompt": "x", "choices": ["a", "b"], "correct_choices": []], "bad_request correct_choices"),
                (["type": "boolean", "prompt": "x", "correct_choice": 2], "bad_request correct_choice"),
                (["type": "boolean", "prompt": "x", "choices": ["Yes", "No"], "correct_choice": 0], "bad_request choices"),
                (["type": "text", "prompt": "x", "accepted": .array(Array(repeating: .string("a"), count: 21))], "bad_request accepted"),
                (["type": "text", "prompt": "x", "accepted": ["a"], "matching": "fuzzy"], "bad_request matching"),
                (["type": "text", "prompt": "x", "accepted": [.string(String(repeating: "a", count: 201))]], "bad_request accepted"),
                (["type": "number", "prompt": "x", "correct_number": "3"], "bad_request correct_number"),
                (["type": "number", "prompt": "x", "correct_number": 3, "tolerance": -1], "bad_request tolerance"),
            ]
            for (fields, expected) in bad {
                #expect(try await refusal(a, "question_add", with(fields)) == expected, "\(fields)")
            }
            #expect(try await refusal(a, "quiz_create", ["description": "no title"]) == "bad_request title")
            #expect(try await refusal(a, "quiz_create", ["title": .string(String(repeating: "t", count: 81))]) == "bad_request title")
            #expect(try await refusal(a, "quiz_create", ["title": "x", "difficulty": "brutal"]) == "bad_request difficulty")
            #expect(try await refusal(a, "quiz_update", q) == "bad_request title")
            #expect(try await refusal(a, "question_add", ["quiz": "quiz-999999", "type": "boolean", "prompt": "x", "correct_choice": 0]) == "unknown_bank")
            #expect(try await refusal(a, "question_add", ["quiz": "world-capitals", "type": "boolean", "prompt": "x", "correct_choice": 0]) == "not_owner")
            #expect(try await refusal(a, "question_delete", ["question_id": 999_999_999]) == "unknown_question")
            #expect(try await refusal(a, "quiz_publish", ["quiz": "world-capitals"]) == "not_owner")
            #expect(try await ok(a, "quiz_questions", q)["quiz"]?["questions"] == 5)

            // Another player neither edits the quiz nor sees its keys, and a private quiz is
            // not theirs to see or play: it answers exactly as a missing one (issue 23; it
            // answered not_owner, which told a private quiz from a missing slug).
            let questionID = single["question"]?["question_id"] ?? .null
            #expect(try await refusal(b, "quiz_questions", q) == "unknown_bank")
            #expect(try await refusal(b, "quiz_update", with(["title": "Mine"])) == "unknown_bank")
            #expect(try await refusal(b, "quiz_delete", q) == "unknown_bank")
            #expect(try await refusal(b, "quiz_publish", q) == "unknown_bank")
            #expect(try await refusal(b, "question_add", with(["type": "boolean", "prompt": "x", "correct_choice": 0])) == "unknown_bank")
            #expect(try await refusal(b, "question_update", ["question_id": questionID, "type": "boolean", "prompt": "x", "correct_choice": 0]) == "unknown_question")
            #expect(try await refusal(b, "question_delete", ["question_id": questionID]) == "unknown_question")
            #expect(try await refusal(b, "quiz", q) == "unknown_bank")
            #expect(try await refusal(b, "practice", ["bank": .string(slug)]) == "unknown_bank")
            #expect(try await refusal(b, "room_create", ["bank": .string(slug)]) == "unknown_bank")
            #expect(try await refusal(b, "quiz_save", q) == "unknown_bank")
            #expect(try await refusal(b, "rate", with(["value": 1])) == "unknown_bank")

            // Update, delete a question, and the owner's list.
            let updated = try await ok(a, "quiz_update", with(["title": "Five types", "difficulty": "hard"]))
            #expect(updated["quiz"]?["title"] == "Five types" && updated["quiz"]?["description"] == "All five\ntypes")
            let replaced = try await ok(a, "question_update", ["question_id": questionID, "type": "text", "prompt": "One, typed?", "accepted": ["b"]])
            #expect(replaced["question"]?["question_id"] != questionID && replaced["question"]?["type"] == "text")
            #expect(try await refusal(a, "question_update", ["question_id": questionID, "type": "text", "prompt": "again", "accepted": ["b"]]) == "unknown_question")
            try await ok(a, "question_delete", ["question_id": number["question"]?["question_id"] ?? .null])
            #expect(try await ok(a, "quiz_questions", q)["quiz"]?["questions"] == 4)
            // Published, then unpublished by its owner.
            #expect(try await ok(a, "quiz_publish", q)["quiz"]?["published"] == true)
            #expect(try await ok(a, "quiz_unpublish", q)["quiz"]?["published"] == false)
            #expect(try await refusal(b, "quiz", q) == "unknown_bank")
            let mine = try await ok(a, "my_quizzes")
            #expect(count(mine["quizzes"]) == 1 && mine["quizzes"]?[0]?["quiz"] == .string(slug))
            try await ok(a, "quiz_delete", q)
            #expect(count(try await ok(a, "my_quizzes")["quizzes"]) == 0)
            #expect(try await refusal(a, "quiz_questions", q) == "unknown_bank")
        }

        @Test func publishingTheCatalogLibrariesVotesAndReports() async throws {
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let empty = try await ok(a, "quiz_create", ["title": "Empty"])
            #expect(try await refusal(a, "quiz_publish", ["quiz": empty["quiz"]?["quiz"] ?? .null]) == "bank_empty")
            let slug = try await quiz(a, title: "Capitals of Africa 100%_")
            let q: JSONObject = ["quiz": .string(slug)]
            // The owner plays a private quiz alone; nobody finds it in the catalog.
            let practice = try await ok(a, "practice", ["bank": .string(slug)])
            try await ok(a, "forfeit", ["duel_id": practice["duel_id"] ?? .null])
            #expect(count(try await ok(b, "catalog", ["search": "Africa"])["quizzes"]) == 0)

            let published = try await ok(a, "quiz_publish", q)
            #expect(published["quiz"]?["published"] == true && published["quiz"]?["plays"] == 1)
            // Search (LIKE's wildcards are plain text), filters, sorts and pages.
            let found = try await ok(b, "catalog", ["search": "100%_", "theme": "GEOGRAPHY", "difficulty": "easy", "sort": "new"])
            #expect(count(found["quizzes"]) == 1 && found["quizzes"]?[0]?["questions"] == 3)
            #expect(found["quizzes"]?[0]?["your_vote"] == 0 && found["quizzes"]?[0]?["saved"] == false)
            #expect(count(try await ok(b, "catalog", ["search": "100%x"])["quizzes"]) == 0)
            #expect(count(try await ok(b, "catalog", ["search": "Africa", "difficulty": "hard"])["quizzes"]) == 0)
            let second = try await quiz(a, title: "Capitals of Asia")
            try await ok(a, "quiz_publish", ["quiz": .string(second)])
            let page1 = try await ok(b, "catalog", ["search": "Capitals of", "sort": "new", "limit": 1])
            #expect(page1["quizzes"]?[0]?["quiz"] == .string(second) && page1["next_cursor"] == "1")
            let page2 = try await ok(b, "catalog", ["search": "Capitals of", "sort": "new", "limit": 1, "cursor": "1"])
            #expect(page2["quizzes"]?[0]?["quiz"] == .string(slug) && page2["next_cursor"] == .null)
            // Most played first, and the smoothed like share: one like on the newer quiz puts it
            // first among top rated; the older one has the play (the owner's practice).
            let popular = try await ok(b, "catalog", ["search": "Capitals of", "sort": "popular"])
            #expect(popular["quizzes"]?[0]?["quiz"] == .string(slug))
            try await ok(b, "rate", ["quiz": .string(second), "value": 1])
            let top = try await ok(b, "catalog", ["search": "Capitals of", "sort": "top_rated"])
            #expect(top["quizzes"]?[0]?["quiz"] == .string(second))
            try await ok(b, "rate", ["quiz": .string(second), "value": 0])
            #expect(try await refusal(b, "catalog", ["sort": "best"]) == "bad_request sort")
            #expect(try await refusal(b, "catalog", ["cursor": "x"]) == "bad_request cursor")

            // Save ("download"), library, vote once, and the counts follow.
            #expect(try await ok(b, "quiz_save", q)["quiz"]?["saves"] == 1)
            #expect(try await ok(b, "quiz_save", q)["quiz"]?["saves"] == 1)
            #expect(try await ok(b, "library")["quizzes"]?[0]?["saved"] == true)
            #expect(try await ok(b, "rate", with(q, ["value": 1])) == .object(["likes": 1, "dislikes": 0, "your_vote": 1]))
            #expect(try await ok(b, "rate", with(q, ["value": -1])) == .object(["likes": 0, "dislikes": 1, "your_vote": -1]))
            #expect(try await ok(b, "quiz", q)["quiz"]?["your_vote"] == -1)
            #expect(try await ok(b, "rate", with(q, ["value": 0])) == .object(["likes": 0, "dislikes": 0, "your_vote": 0]))
            #expect(try await refusal(a, "rate", with(q, ["value": 1])) == "bad_request quiz")
            #expect(try await refusal(b, "rate", with(q, ["value": 2])) == "bad_request value")
            #expect(try await refusal(b, "rate", ["value": 1]) == "bad_request quiz")
            // A question's votes move its draw weight (bounded).
            let db = try server.database()
            defer { db.close() }
            let question = try db.query("""
                SELECT q.id FROM questions q JOIN banks b ON b.id = q.bank_id WHERE b.slug = \(slug) ORDER BY q.id LIMIT 1
                """)[0].int64("id")
            #expect(try await ok(b, "rate", ["question_id": .int(question), "value": 1])["likes"] == 1)
            #expect(try db.query("SELECT weight FROM questions WHERE id = \(question)")[0].double("weight") > 1)
            #expect(try await refusal(a, "rate", ["question_id": .int(question), "value": 1]) == "bad_request question_id")
            // Reports cover quizzes.
            try await ok(b, "report", with(q, ["reason": "copied from a textbook"]))
            #expect(try db.query("SELECT count(*) AS n FROM ops.reported_quizzes WHERE quiz = \(slug)")[0].int("n") == 1)
            #expect(try await refusal(b, "report", with(q, ["question_id": .int(question), "reason": "x"])) == "bad_request question_id")

            // Matchmaking stays on operator banks until an operator promotes the quiz.
            #expect(try await refusal(b, "queue", ["bank": .string(slug)]) == "unknown_bank")
            try db.query("SELECT ops.promote_quiz(\(slug))")
            try await Task.sleep(for: .milliseconds(2_100))  // the server's bank list is cached for 2 s
            let banks = try await ok(b, "banks")
            guard case .array(let listed)? = banks["banks"] else { throw DuelClientError.timeout("banks") }
            #expect(listed.contains { $0["slug"] == .string(slug) })
            #expect(try await ok(b, "queue", ["bank": .string(slug)])["queued_at"] != nil)
            try await ok(b, "cancel")

            // Unpublished: out of the catalog and matchmaking, still in b's library; an
            // operator's reason reaches the owner.
            // An operator resolving a report about the quiz tells its owner (issue 14).
            let report = try db.query("SELECT report_id FROM ops.reported_quizzes WHERE quiz = \(slug)")[0].int64("report_id")
            try db.query("SELECT ops.resolve_report(\(report))")
            try db.query("SELECT ops.unpublish_quiz(\(slug), 'copied')")
            let told = try db.query("""
                SELECT kind FROM notifications WHERE player_id = \(a.id)::uuid ORDER BY id
                """).map { try $0.string("kind") }
            #expect(told.contains("quiz_promoted") && told.contains("report_resolved") && told.contains("quiz_unpublished"))
            #expect(told.contains("achievement"))  // quiz_author, at the first publish
            #expect(try await refusal(b, "queue", ["bank": .string(slug)]) == "unknown_bank")
            #expect(count(try await ok(b, "catalog", ["search": "Africa"])["quizzes"]) == 0)
            #expect(try await ok(b, "library")["quizzes"]?[0]?["published"] == false)
            #expect(try await refusal(b, "practice", ["bank": .string(slug)]) == "unknown_bank")
            #expect(try await ok(a, "my_quizzes")["quizzes"]?[1]?["unpublished_reason"] == "copied")
            try await ok(b, "quiz_unsave", q)
            #expect(count(try await ok(b, "library")["quizzes"]) == 0)
        }

        func with(_ base: JSONObject, _ extra: JSONObject) -> JSONObject {
            var fields = base
            for (key, value) in extra.pairs { fields[key] = value }
            return fields
        }

        @Test func aRoomOnAQuizAndEditsThatKeepPastGames() async throws {
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let slug = try await quiz(a)
            // The owner invites a friend to a room on the private quiz.
            let created = try await ok(a, "room_create", ["bank": .string(slug), "questions": 3])
            let b = try await TestPlayer.signUp(server.url)
            try await ok(b, "room_join", ["code": created["room"]?["code"] ?? .null])
            let started = try await ok(a, "room_start")
            let duel = started["duel_id"]?.string ?? ""
            _ = try await playRoomGame(server, [a, b], duel: duel)
            // b missed every question; then a rewrites the first one.
            let before = try await ok(b, "mistakes", ["limit": 10])
            #expect(count(before["questions"]) == 3)
            let listed = try await ok(a, "quiz_questions", ["quiz": .string(slug)])
            let first = listed["questions"]?[0]?["question_id"] ?? .null
            try await ok(a, "question_update", ["question_id": first, "type": "single", "prompt": "Rewritten?",
                                                  "choices": ["no", "yes"], "correct_choice": 1])
            let after = try await ok(b, "mistakes", ["limit": 10])
            #expect(after == before)
            let history = try await ok(b, "history", ["limit": 1])
            #expect(!history.serialized.contains("Rewritten"))
            #expect(try await ok(a, "quiz_questions", ["quiz": .string(slug)]).serialized.contains("Rewritten?"))
            #expect(try await ok(a, "my_quizzes")["quizzes"]?[0]?["plays"] == 1)
            // Deleted: the room cannot start another game on it.
            try await ok(a, "quiz_delete", ["quiz": .string(slug)])
            #expect(try await refusal(a, "room_start") == "unknown_bank")
        }

        @Test func capsAndTheAuthoringRateLimit() async throws {
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            for n in 1...QuizLimits.quizzesPerPlayer {
                try await ok(a, "quiz_create", ["title": .string("Quiz \(n)")])
            }
            #expect(try await refusal(a, "quiz_create", ["title": "One too many"]) == "limit_reached")
            let slug = try await ok(a, "my_quizzes")["quizzes"]?[0]?["quiz"] ?? .null
            for n in 1...QuizLimits.questionsPerQuiz {
                try await ok(a, "question_add", ["quiz": slug, "type": "boolean", "prompt": .string("S\(n)"), "correct_choice": 0])
            }
            #expect(try await refusal(a, "question_add", ["quiz": slug, "type": "boolean", "prompt": "x", "correct_choice": 0]) == "limit_reached")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM banks WHERE owner_id = \(a.id)::uuid")[0].int("n") == 50)

            // A server that allows 3 authoring writes a minute refuses the 4th, changing nothing.
            let strict = try server.another { $0.social.authoringPerMinute = 3 }
            defer { strict.stop() }
            let c = try await TestPlayer.signUp(strict.url)
            for n in 1...3 { try await ok(c, "quiz_create", ["title": .string("Q\(n)")]) }
            #expect(try await refusal(c, "quiz_create", ["title": "Q4"]) == "rate_limited")
            #expect(count(try await ok(c, "my_quizzes")["quizzes"]) == 3)
            // Reading is not limited.
            #expect(count(try await ok(c, "catalog")["quizzes"]) >= 0)
        }
    }
}
