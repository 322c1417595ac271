@testable import DuelCore

/// Shared builders for the rules tests: two players, a small bank, fast rules.
enum Fixture {
    static let alice = "p-alice"
    static let bob = "p-bob"

    static func questions(_ count: Int, choices: Int = 4) -> [DuelQuestion] {
        (0..<count).map { index in
            DuelQuestion(
                id: Int64(100 + index),
                prompt: "Question \(index)?",
                choices: (0..<choices).map { "option \($0) of \(index)" },
                correctChoice: index % choices)
        }
    }

    /// Questions of every type in turn: single, multiple, boolean, text, number. Their keys
    /// are strings no prompt or choice contains, so a leak shows as the key's text in a frame.
    static func mixedQuestions(_ count: Int) -> [DuelQuestion] {
        (0..<count).map { index in
            let id = Int64(100 + index), prompt = "Question \(index)?"
            switch index % 5 {
            case 0: return DuelQuestion(id: id, prompt: prompt, choices: ["a", "b", "c"], correctChoice: index % 3)
            case 1: return DuelQuestion(id: id, prompt: prompt, choices: ["a", "b", "c", "d"],
                                        key: .multiple(correct: [0, 2]))
            case 2: return DuelQuestion(id: id, prompt: prompt, choices: QuestionType.booleanChoices,
                                        key: .boolean(correct: index % 2 == 0))
            case 3: return DuelQuestion(id: id, prompt: prompt, choices: [],
                                        key: .text(accepted: ["Zanzibar\(index)", "Xylo\(index)phone"], matching: .rough))
            default: return DuelQuestion(id: id, prompt: prompt, choices: [],
                                         key: .number(correct: 987_654.125 + Double(index), tolerance: 0.25))
            }
        }
    }

    /// A submission for `question` from a small number `pick` (0-5): right, wrong or, at 5,
    /// the wrong kind of answer for the type (`bad_request`).
    static func submission(_ pick: Int, for question: DuelQuestion) -> Submission {
        switch (question.key, pick) {
        case (.single, 5), (.boolean, 5), (.number, 5): return .text("five")
        case (.multiple, 5), (.text, 5): return .choice(0)
        case (.single, _), (.boolean, _): return .choice(pick)
        case (.multiple, _): return .choices(pick % 2 == 0 ? [2, 0] : [pick % 4])
        case (.text(let accepted, _), _): return .text(pick % 2 == 0 ? accepted[0].lowercased() : "nope \(pick)")
        case (.number(let correct, let tolerance), _): return .number(correct + Double(pick - 1) * tolerance)
        }
    }

    static func players(_ a: GlickoRating = .newPlayer, _ b: GlickoRating = .newPlayer) -> [DuelPlayer] {
        [DuelPlayer(id: alice, username: "alice", rating: a), DuelPlayer(id: bob, username: "bob", rating: b)]
    }

    /// A started duel at t = 0 with the default durations (3 s, 10 s, 2 s, 60 s).
    static func duel(
        questions count: Int = 10, configuration: DuelConfiguration = .standard
    ) -> (Duel, DuelStep) {
        Duel.start(
            id: "d-1", bank: "capitals", players: players(), questions: questions(count),
            configuration: configuration, nowMs: 0)!
    }

    /// The correct and a wrong choice of question `index` of the fixture bank.
    static func correct(_ index: Int, choices: Int = 4) -> Int { index % choices }
    static func wrong(_ index: Int, choices: Int = 4) -> Int { (index + 1) % choices }
}

extension DuelStep {
    var kinds: [DuelEventKind] { events.map(\.kind) }
}
