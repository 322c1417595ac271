import PropertyBased
import Testing
@testable import DuelCore

/// The store keeps a duel as its start state plus the inputs that changed it, and
/// writes only what each step lists. These properties are what that relies on,
/// over random input sequences (the same generator as ``DuelPropertyTests``).
@Suite struct DuelReplayPropertyTests {
    @Test func replayingTheLoggedInputsRebuildsTheStateAndStepsListEveryWrite() async {
        await propertyCheck(
            count: 1_500,
            input: Gen.int(in: 0...Int.max).array(of: 1...120), Gen.int(in: 0...5)
        ) { raws, shape in
            run(raws.map(DuelPropertyTests.Input.init),
                configuration: DuelPropertyTests.configurations[shape % 3], bankSize: shape < 3 ? 10 : 2 + shape)
        }
    }

    func run(_ inputs: [DuelPropertyTests.Input], configuration: DuelConfiguration, bankSize: Int) {
        guard let (base, _) = Duel.start(
            id: "d", bank: "b", players: Fixture.players(),
            questions: Fixture.questions(bankSize, choices: 2 + bankSize % 4),
            configuration: configuration, nowMs: 0)
        else {
            Issue.record("start failed")
            return
        }
        var duel = base
        var logged: [DuelInput] = []
        var written: [DuelStep.NewAnswer] = []
        var now: Int64 = 0
        let seats = [Fixture.alice, Fixture.bob]
        for raw in inputs {
            now += raw.dt
            let input: DuelInput = switch raw {
            case .advance: .advance(atMs: now)
            case .answer(let seat, let index, let choice, _):
                .answer(player: seats[seat], questionIndex: index, choice: choice, atMs: now)
            case .forfeit(let seat, _): .forfeit(player: seats[seat], atMs: now)
            case .disconnect(let seat, _): .disconnected(player: seats[seat], atMs: now)
            case .reconnect(let seat, _): .reconnected(player: seats[seat], atMs: now)
            case .stranger: .answer(player: "p-eve", questionIndex: 0, choice: 0, atMs: now)
            }
            let before = duel
            let step = duel.apply(input)
            if step.logsInput {
                logged.append(input)
                // The row the store writes is the state's own columns.
                #expect(step.row == DuelStep.Row(
                    phase: duel.phase, lastSeq: duel.seq, nextDeadlineMs: duel.nextDeadlineMs,
                    questionsOpened: duel.rounds.count, result: duel.result))
            } else {
                // A step that logs nothing changed nothing: skipping it on replay is exact.
                #expect(duel == before, "\(input) changed the state but logs nothing")
                #expect(step.row == nil && step.newAnswers.isEmpty)
            }
            written += step.newAnswers
        }
        var rebuilt = base
        rebuilt.replay(logged)
        #expect(rebuilt == duel, "replaying \(logged.count) logged inputs did not rebuild the state")
        // Every answer in the state was listed by exactly one step, with its round's timing.
        let answers = duel.rounds.flatMap { round in
            round.answers.map { DuelStep.NewAnswer(questionIndex: round.questionIndex, answer: $0, elapsedMs: $0.atMs - round.opensAtMs) }
        }
        #expect(written == answers)
        // Stored inputs come back as the same values.
        for input in logged {
            var question: Int?, submission: Submission?
            if case .answer(_, let q, let s, _) = input { (question, submission) = (q, s) }
            #expect(DuelInput(kind: input.kind.rawValue, player: input.player, questionIndex: question,
                              submission: submission, atMs: input.atMs) == input)
        }
    }

    @Test func anAnswerStampedBeforeItsQuestionOpenedIsWrongQuestion() {
        let configuration = DuelConfiguration(countdownMs: 3_000, answerWindowMs: 10_000, revealMs: 2_000,
                                              abandonAfterMs: 60_000, questionCount: 3)
        var (duel, _) = Duel.start(id: "d", bank: "b", players: Fixture.players(),
                                   questions: Fixture.questions(3, choices: 4), configuration: configuration, nowMs: 0)!
        // A timer's transaction opens question 0 at 3,005 ms (it fired late)...
        _ = duel.advance(nowMs: 3_005)
        // ...and an answer that arrived at 3,001 ms is applied after it in the same batch.
        let early = duel.answer(player: Fixture.alice, questionIndex: 0, choice: 0, atMs: 3_001)
        #expect(early.rejection?.code == .wrongQuestion)
        #expect(duel.players[0].score == 0)
        let onTime = duel.answer(player: Fixture.alice, questionIndex: 0, choice: duel.questions[0].correctChoice!, atMs: 3_005)
        #expect(onTime.outcome == .answered(correct: true, points: 200))
    }
}
