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
