import Foundation
import Testing
@testable import DuelCore

/// The situations the original app described, and the edges around them (rules 2-8).
@Suite struct DuelScenarioTests {
    let alice = Fixture.alice
    let bob = Fixture.bob

    @Test func startEmitsInitAndSchedulesTheCountdown() {
        let (duel, step) = Fixture.duel()
        #expect(step.kinds == [.`init`])
        #expect(step.events[0].seq == 1)
        #expect(duel.phase == .countdown)
        #expect(step.nextDeadlineMs == 3_000)
        #expect(step.events[0].record.question == nil)
        #expect(duel.questions.count == 10)
    }

    @Test func startRefusesImpossibleDuels() {
        let same = [Fixture.players()[0], Fixture.players()[0]]
        #expect(Duel.start(id: "x", bank: "b", players: same, questions: Fixture.questions(3), nowMs: 0) == nil)
        #expect(Duel.start(id: "x", bank: "b", players: Fixture.players(), questions: [], nowMs: 0) == nil)
    }

    @Test func countdownEndOpensTheFirstQuestion() {
        var (duel, _) = Fixture.duel()
        #expect(duel.advance(nowMs: 2_999).events.isEmpty)
        let step = duel.advance(nowMs: 3_000)
        #expect(step.kinds == [.question])
        #expect(step.events[0].seq == 2)
        let question = step.events[0].record.question
        #expect(question?.index == 0)
        #expect(question?.opensAtMs == 3_000)
        #expect(question?.deadlineMs == 13_000)
        // The deadline itself is still in time, so the reveal is due a millisecond later.
        #expect(step.nextDeadlineMs == 13_001)
    }

    /// (a) Player 1 answers correctly first: player 2 is locked out, the question is revealed at once.
    @Test func firstCorrectAnswerWinsAndLocksOut() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        let step = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 4_500)
        #expect(step.outcome == .answered(correct: true, points: 190))
        #expect(step.kinds == [.answered, .reveal, .question])
        #expect(duel.rounds[0].revealCause == .won)
        let reveal = step.events[1].record.reveal
        #expect(reveal?.correctChoice == 0)
        #expect(reveal?.points[alice] == 190)
        #expect(reveal?.points[bob] == 0)
        #expect(reveal?.choices[bob] == .some(nil))
        #expect(step.events[1].record.state == .reveal)
        #expect(step.events[1].record.phaseEndsAtMs == 6_500)
        // The next question opens in the same step, stamped at the reveal pause's end (issue 25):
        // its event lies ahead of the clock, and the next deadline is its own.
        #expect(duel.phase == .question)
        #expect(step.events[2].atMs == 6_500 && step.events[2].record.question?.index == 1)
        #expect(duel.currentRound?.opensAtMs == 6_500)
        #expect(step.nextDeadlineMs == 16_501)

        let late = duel.answer(player: bob, questionIndex: 0, choice: Fixture.correct(0), atMs: 4_600)
        #expect(late.rejection?.code == .lockedOut)
        #expect(late.events.isEmpty)
        #expect(duel.players[1].score == 0)
    }

    /// Which refusals stand (``DuelStep/refusalStands``: a later state refuses them too, so the
    /// store need not check a cached state for them): all but an answer to a question that may
    /// still open.
    @Test func refusalsThatStand() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        // Question 1 may still open: the one refusal that does not stand.
        let early = duel.answer(player: alice, questionIndex: 1, choice: 0, atMs: 3_100)
        #expect(early.rejection?.code == .wrongQuestion && !early.refusalStands)
        // Past the last question: it never opens.
        let never = duel.answer(player: alice, questionIndex: duel.questions.count, choice: 0, atMs: 3_100)
        #expect(never.rejection?.code == .wrongQuestion && never.refusalStands)
        let negative = duel.answer(player: alice, questionIndex: -1, choice: 0, atMs: 3_100)
        #expect(negative.rejection?.code == .badRequest && negative.refusalStands)
        let stranger = duel.answer(player: "p-eve", questionIndex: 0, choice: 0, atMs: 3_100)
        #expect(stranger.rejection?.code == .notInDuel && stranger.refusalStands)
        #expect(duel.answer(player: alice, questionIndex: 0, choice: Fixture.wrong(0), atMs: 3_200).rejection == nil)
        let again = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_300)
        #expect(again.rejection?.code == .alreadyAnswered && again.refusalStands)
        // An accepted answer, and an input that changes nothing, are not refusals at all.
        let won = duel.answer(player: bob, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_400)
        #expect(won.rejection == nil && !won.refusalStands)
        #expect(!duel.advance(nowMs: 3_500).refusalStands)
        // Question 1 opened with the reveal, at its pause's end (5,400): an answer before that
        // stays early in every later state.
        let ahead = duel.answer(player: alice, questionIndex: 1, choice: Fixture.correct(1), atMs: 5_399)
        #expect(ahead.rejection?.code == .wrongQuestion && ahead.refusalStands)
        // Bob wins it, and Alice is locked out.
        #expect(duel.advance(nowMs: 5_400).kinds == [])
        #expect(duel.answer(player: bob, questionIndex: 1, choice: Fixture.correct(1), atMs: 5_500).rejection == nil)
        let locked = duel.answer(player: alice, questionIndex: 1, choice: Fixture.correct(1), atMs: 5_600)
        #expect(locked.rejection?.code == .lockedOut && locked.refusalStands)
        // Question 2 is revealed at its deadline: too late.
        #expect(duel.advance(nowMs: 7_500).kinds == [])
        #expect(duel.advance(nowMs: 17_501).kinds == [.reveal, .question])
        let late = duel.answer(player: alice, questionIndex: 2, choice: Fixture.correct(2), atMs: 17_600)
        #expect(late.rejection?.code == .tooLate && late.refusalStands)
        _ = duel.forfeit(player: alice, atMs: 17_700)
        let over = duel.answer(player: bob, questionIndex: 3, choice: 0, atMs: 17_800)
        #expect(over.rejection?.code == .duelOver && over.refusalStands)
        let forfeitAgain = duel.forfeit(player: bob, atMs: 17_900)
        #expect(forfeitAgain.rejection?.code == .duelOver && forfeitAgain.refusalStands)
        let lag = duel.measured(bob, lagMs: 50, atMs: 18_000)
        #expect(lag.rejection?.code == .duelOver && lag.refusalStands)
        #expect(duel.end(atMs: 18_100).refusalStands)
    }

    /// docs/PROTOCOL.md: a server that is down when a pause ends does not move the opening. The
    /// first input after it, however late, finds the question open since the pause's end, with
    /// its 10 s counted from then (an opening by a late `advance` would have given 200 points).
    @Test func aLateServerDoesNotMoveTheOpening() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 4_500)
        // Nothing runs from 4,500 to 9,000 (a restart).
        #expect(duel.advance(nowMs: 9_000).events.isEmpty)
        #expect(duel.rounds[1].opensAtMs == 6_500 && duel.rounds[1].deadlineMs == 16_500)
        let answer = duel.answer(player: bob, questionIndex: 1, choice: Fixture.correct(1), atMs: 9_100)
        #expect(answer.outcome == .answered(correct: true, points: 180))
    }

    /// A duel started by an older server (its stored start state has no `revealOpensNext`) is
    /// replayed from its input log after an upgrade: it must keep the rule its stored events
    /// were made by, the next question opening with the `advance` at the pause's end, or the
    /// replay would count a `question` event that was never stored.
    @Test func aDuelStartedBeforeQuestionsOpenedAheadKeepsTheOldRule() throws {
        let (duel, _) = Fixture.duel()
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(duel)) as? [String: Any])
        var configuration = try #require(object["configuration"] as? [String: Any])
        #expect(configuration["revealOpensNext"] as? Bool == true)
        configuration["revealOpensNext"] = nil
        object["configuration"] = configuration
        var old = try JSONDecoder().decode(Duel.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(!old.configuration.opensNextInReveal)
        _ = old.advance(nowMs: 3_000)
        let won = old.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 4_500)
        #expect(won.kinds == [.answered, .reveal])
        #expect(old.phase == .reveal && won.nextDeadlineMs == 6_500)
        #expect(old.advance(nowMs: 6_500).kinds == [.question])
        #expect(old.seq == 5)
    }

    /// (b) Player 1 answers wrong first: player 2 may still answer; the reveal comes when both have.
    @Test func wrongAnswerLocksOutOnlyItsAuthor() {
        for bobIsRight in [true, false] {
            var (duel, _) = Fixture.duel()
            _ = duel.advance(nowMs: 3_000)
            let first = duel.answer(player: alice, questionIndex: 0, choice: Fixture.wrong(0), atMs: 5_000)
            #expect(first.outcome == .answered(correct: false, points: 0))
            #expect(first.kinds == [.answered])
            #expect(duel.phase == .question)
            #expect(first.events[0].record.reveal == nil)
            #expect(first.events[0].record.answers.map(\.correct) == [false])

            let again = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 5_100)
            #expect(again.rejection?.code == .alreadyAnswered)

            let choice = bobIsRight ? Fixture.correct(0) : Fixture.wrong(0)
            let second = duel.answer(player: bob, questionIndex: 0, choice: choice, atMs: 9_000)
            #expect(second.outcome == .answered(correct: bobIsRight, points: bobIsRight ? 140 : 0))
            #expect(second.kinds == [.answered, .reveal, .question])
            #expect(duel.rounds[0].revealCause == (bobIsRight ? .won : .allAnswered))
            let reveal = second.events[1].record.reveal
            #expect(reveal?.choices[alice] == .some(Fixture.wrong(0)))
            #expect(reveal?.choices[bob] == .some(choice))
        }
    }

    /// (c) Nobody answers: the question is revealed at the deadline.
    @Test func deadlineRevealsAnUnansweredQuestion() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        #expect(duel.advance(nowMs: 13_000).events.isEmpty)
        let step = duel.advance(nowMs: 13_001)
        #expect(step.kinds == [.reveal, .question])
        #expect(duel.rounds[0].revealCause == .deadline)
        #expect(step.events[0].record.reveal?.points == [alice: 0, bob: 0])
        let late = duel.answer(player: bob, questionIndex: 0, choice: 0, atMs: 13_002)
        #expect(late.rejection?.code == .tooLate)
    }

    @Test func answerAtTheExactDeadlineMillisecondCounts() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        let step = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 13_000)
        #expect(step.outcome == .answered(correct: true, points: 110))
    }

    @Test func answerOneMillisecondLateIsTooLateEvenBeforeTheTimerFired() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        // No advance at 13_001: the answer itself applies the due deadline first.
        let step = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 13_001)
        #expect(step.rejection?.code == .tooLate)
        #expect(step.kinds == [.reveal, .question])
        #expect(duel.players[0].score == 0)
    }

    @Test func answersOutsideAnOpenQuestionAreRefused() {
        var (duel, _) = Fixture.duel()
        // During the countdown nothing is open.
        #expect(duel.answer(player: alice, questionIndex: 0, choice: 0, atMs: 1_000).rejection?.code == .wrongQuestion)
        _ = duel.advance(nowMs: 3_000)
        #expect(duel.answer(player: alice, questionIndex: 1, choice: 0, atMs: 3_100).rejection?.code == .wrongQuestion)
        #expect(duel.answer(player: alice, questionIndex: 99, choice: 0, atMs: 3_100).rejection?.code == .wrongQuestion)
        #expect(duel.answer(player: alice, questionIndex: -1, choice: 0, atMs: 3_100).rejection?.code == .badRequest)
        #expect(duel.answer(player: alice, questionIndex: 0, choice: 4, atMs: 3_100).rejection?.code == .badRequest)
        #expect(duel.answer(player: alice, questionIndex: 0, choice: -1, atMs: 3_100).rejection?.code == .badRequest)
        #expect(duel.answer(player: "p-eve", questionIndex: 0, choice: 0, atMs: 3_100).rejection?.code == .notInDuel)
        // During the reveal, the next question is not open yet (it opens ahead, at 5,200).
        _ = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_200)
        #expect(duel.currentRound?.opensAtMs == 5_200)
        #expect(duel.answer(player: bob, questionIndex: 1, choice: 0, atMs: 3_300).rejection?.code == .wrongQuestion)
        #expect(duel.answer(player: alice, questionIndex: 0, choice: 0, atMs: 3_300).rejection?.code == .alreadyAnswered)
        // An earlier question keeps its own verdict after the next one opens.
        _ = duel.advance(nowMs: 5_200)
        #expect(duel.phase == .question)
        #expect(duel.answer(player: bob, questionIndex: 0, choice: 0, atMs: 5_300).rejection?.code == .lockedOut)
        #expect(duel.seq == 5)
    }

    @Test func rejectedAnswersChangeNothing() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        let before = duel
        for (player, index, choice) in [(alice, 0, 7), (alice, 3, 0), ("p-eve", 0, 0)] {
            let step = duel.answer(player: player, questionIndex: index, choice: choice, atMs: 4_000)
            #expect(step.rejection != nil)
            #expect(step.events.isEmpty)
            #expect(!step.changedState)
        }
        #expect(duel == before)
    }

    @Test func aWholeDuelScoresAndRatesOnce() {
        var (duel, _) = Fixture.duel(questions: 3)
        var events: [DuelEvent] = []
        var now: Int64 = 3_000
        events += duel.advance(nowMs: now).events
        for index in 0..<3 {
            // Alice always answers correctly one second in; Bob is wrong on question 1.
            if index == 1 {
                events += duel.answer(player: bob, questionIndex: index, choice: Fixture.wrong(index), atMs: now + 500).events
            }
            events += duel.answer(player: alice, questionIndex: index, choice: Fixture.correct(index), atMs: now + 1_000).events
            now += 1_000 + 2_000
            events += duel.advance(nowMs: now).events
        }
        #expect(events.map(\.seq) == Array(2...(events.count + 1)))
        #expect(events.last?.kind == .complete)
        #expect(duel.phase == .finished)
        #expect(duel.players[0].score == 3 * 190)
        #expect(duel.result?.winner == alice)
        #expect(duel.result?.reason == .completed)
        let ratings = duel.result!.outcomes
        #expect(ratings[0].rating.after.rating > 1500)
        #expect(ratings[1].rating.after.rating < 1500)
        #expect(events.last?.record.result?.ratings[alice]?.before == 1500)
        #expect(duel.advance(nowMs: now + 100_000).events.isEmpty)
        #expect(duel.answer(player: bob, questionIndex: 2, choice: 0, atMs: now).rejection?.code == .duelOver)
        #expect(duel.forfeit(player: bob, atMs: now).rejection?.code == .duelOver)
    }

    @Test func equalScoresDraw() {
        var (duel, _) = Fixture.duel(questions: 1)
        _ = duel.advance(nowMs: 3_000)
        _ = duel.advance(nowMs: 13_001)
        let step = duel.advance(nowMs: 15_001)
        #expect(step.kinds == [.complete])
        #expect(duel.result?.winner == nil)
        #expect(step.completion?.outcomes.map(\.outcome) == [.draw, .draw])
    }

    @Test func aBankWithFewerQuestionsPlaysThemAll() {
        var (duel, _) = Fixture.duel(questions: 2)
        #expect(duel.questions.count == 2)
        var kinds: [DuelEventKind] = []
        for now in stride(from: Int64(0), through: 40_000, by: 500) {
            kinds += duel.advance(nowMs: now).kinds
        }
        #expect(kinds == [.question, .reveal, .question, .reveal, .complete])
        #expect(duel.seq == 6)
    }

    @Test func configuredQuestionCountLimitsTheDraw() {
        var configuration = DuelConfiguration.standard
        configuration.questionCount = 4
        let (duel, _) = Fixture.duel(questions: 10, configuration: configuration)
        #expect(duel.questions.count == 4)
        #expect(duel.record(for: Fixture.alice)?.questionCount == 4)
    }

    @Test func zeroPausesChainTransitions() {
        let configuration = DuelConfiguration(countdownMs: 0, revealMs: 0)
        var (duel, start) = Fixture.duel(questions: 2, configuration: configuration)
        #expect(start.kinds == [.`init`, .question])
        let step = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 10)
        #expect(step.kinds == [.answered, .reveal, .question])
        #expect(duel.questionIndex == 1)
        let last = duel.answer(player: bob, questionIndex: 1, choice: Fixture.correct(1), atMs: 20)
        #expect(last.kinds == [.answered, .reveal, .complete])
        #expect(duel.result?.winner == nil)
    }

    @Test(arguments: [
        (Int64(1_000), DuelPhase.countdown), (5_000, .question), (7_000, .question), (14_000, .question),
    ])
    func forfeitInEveryStateLosesAtOnce(atMs: Int64, phase: DuelPhase) {
        // 7,000 is in the reveal pause (6,000-8,000), where question 1 waits, opened ahead.
        var (duel, _) = Fixture.duel()
        if atMs >= 7_000 {
            _ = duel.advance(nowMs: 3_000)
            _ = duel.answer(player: bob, questionIndex: 0, choice: Fixture.correct(0), atMs: 6_000)
        }
        _ = duel.advance(nowMs: atMs)
        #expect(duel.phase == phase)
        let step = duel.forfeit(player: bob, atMs: atMs)
        #expect(step.kinds == [.complete])
        // A game that ends in the pause ends before the question opened ahead of it: the end
        // shows the question just revealed, and the unplayed one is gone.
        if atMs == 7_000 {
            #expect(duel.rounds.count == 1)
            #expect(step.events[0].record.questionIndex == 0 && step.events[0].record.reveal?.questionIndex == 0)
        }
        #expect(duel.result?.winner == alice)
        #expect(duel.result?.reason == .forfeit)
        #expect(step.completion != nil)
        #expect(step.nextDeadlineMs == nil)
        #expect(duel.forfeit(player: alice, atMs: atMs).rejection?.code == .duelOver)
    }

    @Test(arguments: [Int64(1_000), 5_000, 7_000])
    func anOperatorEndIsUnratedWithoutAWinnerAndReplays(atMs: Int64) {
        var (duel, _) = Fixture.duel()
        let start = duel
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_100)
        let step = duel.end(atMs: atMs)
        // Deadlines already due apply first (PROTOCOL.md, ops.end_duel). Question 1 was opened
        // ahead by the reveal, at 5,100 (the reveal's 2 s after the answer): the end at 7,000
        // comes after it opened; the end at 5,000 comes before, so it was never played.
        #expect(step.kinds == [.complete])
        #expect(duel.rounds.count == (atMs == 7_000 ? 2 : 1))
        #expect(duel.result?.reason == .ended)
        #expect(duel.result?.winner == nil)
        for outcome in duel.result?.outcomes ?? [] { #expect(outcome.rating.before == outcome.rating.after) }
        #expect(step.completion?.isRated == false)
        #expect(duel.end(atMs: atMs + 1).rejection?.code == .duelOver)
        // The input log replays it to the same state.
        var replayed = start
        replayed.replay([.advance(atMs: 3_000),
                         .answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_100),
                         .end(atMs: atMs)])
        #expect(replayed == duel)
        #expect(DuelInput(kind: "end", player: nil, questionIndex: nil, choice: nil, atMs: atMs) == .end(atMs: atMs))
    }

    @Test func strangersCannotForfeit() {
        var (duel, _) = Fixture.duel()
        #expect(duel.forfeit(player: "p-eve", atMs: 10).rejection?.code == .notInDuel)
        #expect(duel.phase == .countdown)
    }

    @Test func forfeitingLosesEvenWithTheHigherScore() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_100)
        _ = duel.forfeit(player: alice, atMs: 4_000)
        #expect(duel.result?.winner == bob)
        #expect(duel.result?.outcome(of: alice)?.outcome == .loss)
        // Placements follow the forfeit, not the scores (PROTOCOL.md, result.placements).
        #expect(duel.result?.placements == [bob: 1, alice: 2])
    }

    @Test func abandonmentAfterSixtySecondsDisconnected() {
        var (duel, _) = Fixture.duel()
        let gone = duel.playerDisconnected(bob, atMs: 2_000)
        #expect(gone.events.isEmpty)
        #expect(gone.changedState)
        #expect(duel.players[1].connected == false)
        #expect(gone.nextDeadlineMs == 3_000)
        var kinds: [DuelEventKind] = []
        var now: Int64 = 0
        while duel.phase != .finished && now < 100_000 {
            now += 250
            kinds += duel.advance(nowMs: now).kinds
        }
        #expect(now == 62_000)
        #expect(kinds.last == .complete)
        #expect(duel.result?.reason == .abandoned)
        #expect(duel.result?.winner == alice)
        #expect(duel.record(for: alice)?.players[1].connected == false)
    }

    @Test func reconnectingStopsTheAbandonmentClock() {
        var (duel, _) = Fixture.duel()
        _ = duel.playerDisconnected(bob, atMs: 5_000)
        let back = duel.playerReconnected(bob, atMs: 64_000)
        #expect(back.changedState)
        _ = duel.advance(nowMs: 70_000)
        #expect(duel.result == nil || duel.result?.reason == .completed)
        #expect(duel.players[1].connected)
        // A second report of the same state changes nothing.
        #expect(!duel.playerReconnected(bob, atMs: 70_001).changedState)
    }

    @Test func anAnswerFromADisconnectedPlayerStopsTheAbandonmentClock() {
        var (duel, _) = Fixture.duel()
        _ = duel.playerDisconnected(bob, atMs: 2_000)
        // Question 0 is open from 3 s; bob answers from a connection the rules had not heard of.
        let answer = duel.answer(player: bob, questionIndex: 0, choice: Fixture.wrong(0), atMs: 4_000)
        #expect(answer.newAnswers.count == 1)
        #expect(duel.players[1].connected)
        #expect(duel.record(for: bob)?.players[1].connected == true)
        _ = duel.advance(nowMs: 63_000)
        #expect(duel.result?.reason != .abandoned)
    }

    @Test func bothAbandoningAtOnceIsADraw() {
        var (duel, _) = Fixture.duel()
        _ = duel.playerDisconnected(alice, atMs: 1_000)
        _ = duel.playerDisconnected(bob, atMs: 1_000)
        let step = duel.advance(nowMs: 61_000)
        #expect(step.kinds.last == .complete)
        #expect(duel.result?.reason == .abandoned)
        #expect(duel.result?.winner == nil)
    }

    @Test func stateSurvivesAStoreRoundTrip() throws {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: alice, questionIndex: 0, choice: Fixture.wrong(0), atMs: 3_500)
        let data = try JSONEncoderish.roundTrip(duel)
        #expect(data == duel)
    }
}
