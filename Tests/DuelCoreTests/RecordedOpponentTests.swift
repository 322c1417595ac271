import Testing
@testable import DuelCore

/// A recorded opponent (issue 27): the engine gives in a recording's answers at their recorded
/// times, as deadlines; rules 3-6 apply to them as to anyone's; a rebuild gives the same game.
@Suite struct RecordedOpponentTests {
    static let human = Fixture.alice
    static let ghost = DuelPlayer.recordedID

    /// A recorded game of `count` questions at t = 0 (3 s countdown, 10 s per question): the
    /// recording answers question i with `answers[i]` (right or wrong) after `afterMs[i]`.
    func game(_ count: Int = 3, right: [Bool], afterMs: [Int64]) -> (Duel, DuelStep) {
        let questions = Fixture.questions(count)
        let recording = zip(zip(right, afterMs), questions.indices).map { pair, index in
            let key = questions[index].correctChoice!
            return RecordedAnswer(questionIndex: index, submission: .choice(pair.0 ? key : (key + 1) % 4), afterMs: pair.1)
        }
        return Duel.start(
            id: "d-r", bank: "capitals",
            players: [DuelPlayer(id: Self.human, username: "alice", rating: .newPlayer),
                      DuelPlayer(id: Self.ghost, username: "Recorded player", rating: .newPlayer, recording: recording)],
            questions: questions, mode: .recorded, nowMs: 0)!
    }

    @Test func theRecordingAnswersAtItsTimeAndLocksTheSlowerPlayerOut() {
        var (duel, _) = game(right: [true, true, true], afterMs: [2_000, 4_000, 4_000])
        // Question 0 opens at 3,000; the recording's right answer is due at 5,000.
        #expect(duel.nextDeadlineMs == 3_000)
        _ = duel.advance(nowMs: 3_000)
        #expect(duel.nextDeadlineMs == 5_000)
        let step = duel.advance(nowMs: 5_004)
        #expect(duel.rounds[0].revealCause == .won)
        #expect(duel.rounds[0].answers.map(\.player) == [Self.ghost] && duel.rounds[0].answers[0].atMs == 5_000)
        #expect(step.events.map(\.kind) == [.answered, .reveal, .question])
        #expect(step.newAnswers.isEmpty, "a recording's answers are nobody's")
        #expect(duel.answer(player: Self.human, questionIndex: 0, choice: 0, atMs: 5_010).outcome
            == .rejected(ProtocolError(.lockedOut)))
        // Question 1: the person is faster and wins; the recording's answer is never given.
        _ = duel.advance(nowMs: 7_004)
        let opened = duel.rounds[1].opensAtMs
        let won = duel.answer(player: Self.human, questionIndex: 1, choice: duel.questions[1].correctChoice!, atMs: opened + 1_000)
        #expect(won.outcome == .answered(correct: true, points: duel.rounds[1].answers[0].points))
        _ = duel.advance(nowMs: opened + 9_000)
        #expect(duel.rounds[1].answers.map(\.player) == [Self.human])
    }

    @Test func aWrongAnswerWaitsForTheRecordingAsForAnyOpponent() {
        var (duel, _) = game(1, right: [false], afterMs: [6_000])
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: Self.human, questionIndex: 0, choice: (duel.questions[0].correctChoice! + 1) % 4, atMs: 3_500)
        #expect(duel.rounds[0].revealCause == nil && duel.nextDeadlineMs == 9_000)
        _ = duel.advance(nowMs: 9_000)
        #expect(duel.rounds[0].revealCause == .allAnswered)
        _ = duel.advance(nowMs: 20_000)
        #expect(duel.phase == .finished)
        // The facts are the person's alone, with no rival: a first place against a recording is
        // not a win.
        let facts = duel.facts(placements: duel.result?.placements ?? [:])
        #expect(facts.map(\.player) == [Self.human] && facts[0].rivalsAtFirstQuestion == 0)
        #expect(duel.isRated == false)
    }

    @Test func aRecordingIsNeverAbandonedAndARebuildGivesTheSameGame() {
        var (live, _) = game(3, right: [true, false, true], afterMs: [1_500, 9_999, 12_000])
        let (start, _) = game(3, right: [true, false, true], afterMs: [1_500, 9_999, 12_000])
        var inputs: [DuelInput] = [.disconnected(player: Self.ghost, atMs: 100), .lag(player: Self.ghost, lagMs: 90, atMs: 200)]
        for input in inputs { _ = live.apply(input) }
        #expect(live.players[1].connected && live.players[1].lagMs == nil)
        var now: Int64 = 300
        while let due = live.nextDeadlineMs {
            now = max(now, due)
            let input = DuelInput.advance(atMs: now)
            inputs.append(input)
            _ = live.apply(input)
        }
        // Question 2's recorded answer (after 12 s) comes after its deadline: never given.
        #expect(live.rounds[2].answers.isEmpty && live.rounds[2].revealCause == .deadline)
        #expect(live.rounds[1].answers.first?.atMs == live.rounds[1].opensAtMs + 9_999)
        var rebuilt = start
        rebuilt.replay(inputs)
        #expect(rebuilt == live)
        #expect(live.result?.winner == Self.ghost)
    }

    @Test func onlyARecordedGameHasARecordingAndOnlyOne() {
        let recording = [RecordedAnswer(questionIndex: 0, submission: .choice(0), afterMs: 1)]
        let person = DuelPlayer(id: Self.human, username: "alice", rating: .newPlayer)
        let ghost = DuelPlayer(id: Self.ghost, username: "Recorded player", rating: .newPlayer, recording: recording)
        let questions = Fixture.questions(1)
        #expect(Duel.start(id: "x", bank: "b", players: [person, ghost], questions: questions, mode: .ranked, nowMs: 0) == nil)
        #expect(Duel.start(id: "x", bank: "b", players: [person, Fixture.players()[1]], questions: questions,
                           mode: .recorded, nowMs: 0) == nil)
        #expect(Duel.start(id: "x", bank: "b", players: [ghost, person], questions: questions, mode: .recorded, nowMs: 0) == nil)
        #expect(Duel.start(id: "x", bank: "b", players: [person, ghost], questions: questions, mode: .recorded, nowMs: 0) != nil)
    }
}
