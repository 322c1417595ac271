import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// Question types over real sockets (issue 13): every type is answered and judged, a misfit
    /// answer is `bad_request` naming its field, the reveal carries each key and every player's
    /// answer, no form of a key is in any frame before its reveal, and the mistakes notebook
    /// shows answers of every type.
    @Suite(.serialized) struct QuestionTypeServerTests {
        let server: TestServer

        init() throws {
            server = try TestServer.start {
                $0.duel = DuelConfiguration(
                    countdownMs: 100, answerWindowMs: 5_000, revealMs: 100, abandonAfterMs: 10_000, questionCount: 5)
            }
            let db = try server.database()
            defer { db.close() }
            try db.query("SELECT ops.create_bank('mixed', 'Every type')")
            try db.query("""
                SELECT ops.import_csv('mixed', \("""
                type,prompt,choices,answer,matching,tolerance
                single,Largest planet?,Mars|Jupiter|Venus,B,,
                multiple,Which are noble gases?,Neon|Iron|Argon|Tin,A|C,,
                boolean,The Moon is a planet.,,false,,
                text,Capital of Burkina Faso?,,Ouagadougou|Wagadugu,rough,
                number,Speed of sound in air (m/s)?,,343.25,,2.5
                """))
                """)
        }

        /// Each question's right answer, a wrong one, a misfit one with the field its refusal
        /// names, and the strings that would betray its key.
        struct Plan {
            let right: JSONObject, wrong: JSONObject, misfit: JSONObject, field: String, secrets: [String]
        }

        func plans(duel: String) throws -> [Int: Plan] {
            let db = try server.database()
            defer { db.close() }
            var plans: [Int: Plan] = [:]
            for row in try db.query("""
                SELECT dq.question_index AS i, q.type, q.correct_choice, q.correct_number
                  FROM duel_questions dq JOIN questions q ON q.id = dq.question_id WHERE dq.duel_id = \(duel)::uuid
                """) {
                let index = try row.int("i")
                switch try row.string("type") {
                case "single":
                    let c = try row.int("correct_choice")
                    plans[index] = Plan(right: ["choice": .number(c)], wrong: ["choice": .number((c + 1) % 3)],
                                        misfit: ["choices": [0]], field: "choice", secrets: [])
                case "multiple":
                    plans[index] = Plan(right: ["choices": [2, 0]], wrong: ["choices": [0, 1, 2]],
                                        misfit: ["choices": [0, 0]], field: "choices", secrets: [])
                case "boolean":
                    plans[index] = Plan(right: ["choice": 1], wrong: ["choice": 0], misfit: ["choice": 2],
                                        field: "choice", secrets: [])
                case "text":
                    plans[index] = Plan(right: ["text": " wagadougou "], wrong: ["text": "Bamako"],
                                        misfit: ["number": 1], field: "text", secrets: ["ouagadougou", "wagadugu"])
                default:
                    plans[index] = Plan(right: ["number": 341], wrong: ["number": 340.5], misfit: ["text": "343"],
                                        field: "number", secrets: ["343.25"])
                }
            }
            return plans
        }

        @Test func everyTypeIsPlayedJudgedAndRevealedAndNothingLeaks() async throws {
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url, bank: "mixed")
            let plans = try plans(duel: duel)
            #expect(plans.count == 5)
            var seenTypes: Set<String> = []
            for _ in 0..<5 {
                guard let question = await a.client.nextEvent("question"),
                      let index = question["record"]?["question"]?["index"]?.integer,
                      let type = question["record"]?["question"]?["type"]?.string,
                      let plan = plans[Int(index)]
                else { throw DuelClientError.timeout("question") }
                seenTypes.insert(type)
                if type == "text" || type == "number" {
                    #expect(question["record"]?["question"]?["choices"] == .array([]))
                }
                func answer(_ player: TestPlayer, _ fields: JSONObject) async throws -> JSONValue {
                    var request: JSONObject = ["duel_id": .string(duel), "question_index": .int(index)]
                    for (key, value) in fields.pairs { request[key] = value }
                    return try await player.client.request("answer", request)
                }
                let misfit = try await answer(a, plan.misfit)
                #expect(misfit["code"] == "bad_request", "\(misfit.serialized)")
                #expect(misfit["message"]?.string?.hasPrefix(plan.field + ":") == true, "\(misfit.serialized)")
                // a is wrong (locked out alone), b is right and wins the question.
                #expect(try await answer(a, plan.wrong)["data"] == .object(["correct": false, "points": 0]))
                #expect(try await answer(b, plan.right)["data"]?["correct"] == true)
                guard let reveal = await a.client.nextEvent("reveal")?["record"]?["reveal"] else {
                    throw DuelClientError.timeout("reveal")
                }
                #expect(reveal["type"] == .string(type))
                #expect(reveal["answers"]?[a.id] == .object(plan.wrong))
                #expect(reveal["answers"]?[b.id] == .object(plan.right))
                switch type {
                case "multiple": #expect(reveal["correct_choices"] == .array([0, 2]))
                case "boolean": #expect(reveal["correct_choice"] == 1)
                case "text": #expect(reveal["accepted"] == .array(["Ouagadougou", "Wagadugu"]))
                case "number": #expect(reveal["correct_number"] == .double(343.25) && reveal["tolerance"] == .double(2.5))
                default: #expect(reveal["correct_choice"]?.integer != nil)
                }
            }
            #expect(seenTypes == ["single", "multiple", "boolean", "text", "number"])
            #expect(await a.client.nextEvent("complete")?["record"]?["result"]?["winner"] == .string(b.id))
            // Rule 10 for every key: no accepted text or number in any frame before its reveal.
            for player in [a, b] {
                checkNothingLeaks(player.client.transcript, secrets: plans.mapValues(\.secrets))
            }
            // The stored answers and a's notebook keep every type.
            let db = try server.database()
            defer { db.close() }
            let stored = try db.query("""
                SELECT count(choice) AS c, count(choices) AS cs, count(answer_text) AS t, count(answer_number) AS n
                  FROM duel_answers WHERE duel_id = \(duel)::uuid
                """)[0]
            #expect(try [stored.int("c"), stored.int("cs"), stored.int("t"), stored.int("n")] == [4, 2, 2, 2])
            let mistakes = try await a.client.request("mistakes", ["limit": 10])
            guard case .array(let missed)? = mistakes["data"]?["questions"] else { throw DuelClientError.timeout("mistakes") }
            #expect(missed.count == 5)
            let text = missed.first { $0["type"] == "text" }
            #expect(text?["your_answer"] == .object(["text": "Bamako"]) && text?["accepted"] == .array(["Ouagadougou", "Wagadugu"]))
            #expect(text?["correct_choice"] == .null && text?["your_choice"] == .null)
            let number = missed.first { $0["type"] == "number" }
            #expect(number?["your_answer"] == .object(["number": .double(340.5)]))
        }
    }
}
