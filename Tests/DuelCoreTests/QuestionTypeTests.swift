import Foundation
import Testing
@testable import DuelCore

/// Every question type in a duel (issue 13): the key judges, lock-out and scoring are those
/// of single choice, a misfit answer is `bad_request` naming its field and changes nothing,
/// and the reveal carries the key and every player's answer.
@Suite struct QuestionTypeTests {
    /// A duel of one question, open from 3,000 ms.
    func duel(_ question: DuelQuestion) -> Duel {
        var (duel, _) = Duel.start(
            id: "d", bank: "b", players: Fixture.players(), questions: [question], configuration: .standard, nowMs: 0)!
        _ = duel.advance(nowMs: 3_000)
        return duel
    }

    static let questions: [DuelQuestion] = [
        DuelQuestion(id: 1, prompt: "Noble gases?", choices: ["Neon", "Iron", "Argon"], key: .multiple(correct: [0, 2])),
        DuelQuestion(id: 2, prompt: "Water is wet.", choices: QuestionType.booleanChoices, key: .boolean(correct: false)),
        DuelQuestion(id: 3, prompt: "Capital of Peru?", choices: [], key: .text(accepted: ["Lima"], matching: .rough)),
        DuelQuestion(id: 4, prompt: "Bones in an adult?", choices: [], key: .number(correct: 206, tolerance: 0)),
    ]
    /// A right and a wrong answer for each question above.
    static let right: [Submission] = [.choices([2, 0]), .choice(1), .text(" lima "), .number(206)]
    static let wrong: [Submission] = [.choices([0]), .choice(0), .text("Quito"), .number(205.5)]

    @Test(arguments: 0..<4)
    func theFirstRightAnswerWinsAndLocksTheOpponentOut(_ index: Int) {
        var duel = duel(Self.questions[index])
        let step = duel.answer(player: Fixture.alice, questionIndex: 0, submission: Self.right[index], atMs: 4_000)
        #expect(step.outcome == .answered(correct: true, points: 190))
        #expect(step.kinds == [.answered, .reveal])
        let late = duel.answer(player: Fixture.bob, questionIndex: 0, submission: Self.right[index], atMs: 4_100)
        #expect(late.rejection?.code == .lockedOut)
    }

    @Test(arguments: 0..<4)
    func aWrongAnswerLocksOutOnlyItsAuthor(_ index: Int) {
        var duel = duel(Self.questions[index])
        let wrong = duel.answer(player: Fixture.alice, questionIndex: 0, submission: Self.wrong[index], atMs: 4_000)
        #expect(wrong.outcome == .answered(correct: false, points: 0))
        #expect(wrong.kinds == [.answered])
        let again = duel.answer(player: Fixture.alice, questionIndex: 0, submission: Self.right[index], atMs: 4_050)
        #expect(again.rejection?.code == .alreadyAnswered)
        let right = duel.answer(player: Fixture.bob, questionIndex: 0, submission: Self.right[index], atMs: 5_000)
        #expect(right.outcome == .answered(correct: true, points: 180))
        // The reveal: the key, and what each player sent.
        let reveal = right.events.last!.record.json["reveal"]!
        #expect(reveal["type"] == .string(Self.questions[index].type.rawValue))
        #expect(reveal["answers"]?[Fixture.alice] == Self.wrong[index].json)
        #expect(reveal["answers"]?[Fixture.bob] == Self.right[index].json)
        switch index {
        case 0: #expect(reveal["correct_choices"] == .array([0, 2])); #expect(reveal["correct_choice"] == .null)
        case 1: #expect(reveal["correct_choice"] == 1); #expect(reveal["choices"]?[Fixture.alice] == 0)
        case 2: #expect(reveal["accepted"] == .array(["Lima"])); #expect(reveal["matching"] == "rough")
        default: #expect(reveal["correct_number"] == 206); #expect(reveal["tolerance"] == 0)
        }
    }

    @Test func misfitAnswersAreBadRequestNamingTheFieldAndChangeNothing() {
        let cases: [(Int, Submission, String)] = [
            (0, .choice(0), "choices: this multiple question is answered with `choices`"),
            (0, .choices([0, 0]), "choices: must be distinct"),
            (0, .choices([3]), "choices: each must be between 0 and 2"),
            (0, .choices([]), "choices: pick at least one"),
            (1, .choice(2), "choice: must be between 0 and 1"),
            (1, .choices([0]), "choice: this boolean question is answered with `choice`"),
            (2, .number(1), "text: this text question is answered with `text`"),
            (2, .text(String(repeating: "a", count: 201)), "text: at most 200 characters"),
            (3, .text("206"), "number: this number question is answered with `number`"),
            (3, .number(.nan), "number: must be a finite number"),
        ]
        for (index, submission, message) in cases {
            var duel = duel(Self.questions[index])
            let before = duel
            let step = duel.answer(player: Fixture.alice, questionIndex: 0, submission: submission, atMs: 4_000)
            #expect(step.rejection == ProtocolError(.badRequest, message))
            #expect(duel == before)
        }
    }

    @Test func aStateWithEveryTypeRoundTripsThroughItsStoredForm() throws {
        var (duel, _) = Duel.start(
            id: "d", bank: "b", players: Fixture.players(), questions: Fixture.mixedQuestions(5),
            configuration: .standard, nowMs: 0)!
        var now: Int64 = 3_000
        for index in 0..<5 {
            _ = duel.advance(nowMs: now)
            _ = duel.answer(player: Fixture.alice, questionIndex: index,
                            submission: Fixture.submission(1, for: duel.questions[index]), atMs: now + 100)
            now += 12_000
        }
        let data = try JSONEncoder().encode(duel)
        #expect(try JSONDecoder().decode(Duel.self, from: data) == duel)
    }

    @Test func aQuestionStoredBeforeQuestionTypesDecodesAsSingle() throws {
        let old = #"{"id":7,"prompt":"Q?","choices":["a","b"],"correctChoice":1}"#
        let question = try JSONDecoder().decode(DuelQuestion.self, from: Data(old.utf8))
        #expect(question == DuelQuestion(id: 7, prompt: "Q?", choices: ["a", "b"], correctChoice: 1))
        let answer = #"{"player":"p","choice":1,"correct":true,"atMs":5,"points":10}"#
        #expect(try JSONDecoder().decode(DuelAnswer.self, from: Data(answer.utf8)).submission == .choice(1))
    }
}
