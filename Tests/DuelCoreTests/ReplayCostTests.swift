import Foundation
import Testing
@testable import DuelCore

/// What deriving a duel's events from its input log costs (issue 25, bench/plans/derive-events.md):
/// a start state's decode, a whole game's replay with its records serialized, and one input
/// applied to a state already caught up. DuelCore is built -O in debug too, so these figures are
/// close to a release build's. Figures, not a target: it prints them and checks only that the
/// replay gives the game it timed.
@Suite struct ReplayCostTests {
    /// A ten-question game at human pace: each question one wrong answer, then the right one,
    /// and the deadlines in between. Returns the start and the inputs that logged.
    func game() -> (Duel, [DuelInput]) {
        var (duel, _) = Fixture.duel()
        let start = duel
        var logged: [DuelInput] = []
        var answered = Set<Int>()
        var now: Int64 = 0
        for _ in 0..<200 where duel.phase != .finished {
            let input: DuelInput
            if duel.phase == .question, !answered.contains(duel.questionIndex) {
                let question = duel.questions[duel.questionIndex]
                now += 1_500
                _ = duel.apply(.answer(player: Fixture.alice, questionIndex: duel.questionIndex,
                                       choice: (question.correctChoice! + 1) % 4, atMs: now))
                logged.append(.answer(player: Fixture.alice, questionIndex: duel.questionIndex,
                                      choice: (question.correctChoice! + 1) % 4, atMs: now))
                answered.insert(duel.questionIndex)
                now += 1_000
                input = .answer(player: Fixture.bob, questionIndex: duel.questionIndex, choice: question.correctChoice!, atMs: now)
            } else {
                now = max(now, duel.nextDeadlineMs ?? now)
                input = .advance(atMs: now)
            }
            if duel.apply(input).logsInput { logged.append(input) }
        }
        return (start, logged)
    }

    func microseconds(_ runs: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<runs { body() } }
        return Double(elapsed.components.attoseconds / 1_000_000_000_000 + elapsed.components.seconds * 1_000_000) / Double(runs)
    }

    @Test func aGamesReplayCost() throws {
        let (start, inputs) = game()
        let startJSON = try JSONEncoder().encode(start)
        var finished = start
        var records = 0
        for input in inputs { records += finished.apply(input).events.count }
        #expect(finished.phase == .finished)
        let runs = 200
        var sink = 0
        let decode = microseconds(runs) { sink &+= (try? JSONDecoder().decode(Duel.self, from: startJSON))?.seq ?? 0 }
        let replay = microseconds(runs) {
            var duel = start
            for input in inputs {
                for event in duel.apply(input).events { sink &+= event.record.serialized.utf8.count }
            }
        }
        let engine = microseconds(runs) {
            var duel = start
            for input in inputs { sink &+= duel.apply(input).events.count }
        }
        var last = start
        for input in inputs.dropLast() { _ = last.apply(input) }
        let incremental = microseconds(runs * 10) {
            var duel = last
            for event in duel.apply(inputs.last!).events { sink &+= event.record.serialized.utf8.count }
        }
        #expect(sink != 0)
        print("""
            replay cost: start \(startJSON.count) B decoded in \(String(format: "%.1f", decode)) µs; \
            \(inputs.count) inputs, \(records) events replayed and serialized in \(String(format: "%.1f", replay)) µs \
            (the engine alone \(String(format: "%.1f", engine)) µs); \
            the last input alone in \(String(format: "%.1f", incremental)) µs
            """)
    }
}
