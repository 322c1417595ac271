import PropertyBased
import Testing
@testable import DuelCore

/// Issue 26's engine promises, over random games of two to four players with random lags:
/// at most one winner per question; the winner is the correct answer credited first among
/// those that arrived before the settle; every waiting answer gets exactly one verdict; the
/// settle waits no longer than the largest lag; a rebuild from the input log equals the live
/// state.
@Suite struct FairAnswerPropertyTests {
    /// One answer taken for judging (not refused when it came), as the oracle keeps it.
    struct Taken {
        let player: PlayerID
        let creditedAtMs: Int64
        let atMs: Int64
        let correct: Bool
        var verdicts = 0
    }

    @Test func theFirstCreditedCorrectAnswerWinsAndEveryWaitingAnswerIsJudgedOnce() async {
        await propertyCheck(
            count: 2_000,
            input: Gen.int(in: 0...Int.max).array(of: 1...160), Gen.int(in: 2...4)
        ) { raws, count in
            run(raws, players: count)
        }
    }

    func run(_ raws: [Int], players count: Int) {
        let players = MultiPlayerPropertyTests.players(count)
        let configuration = DuelConfiguration(
            countdownMs: 500, answerWindowMs: 2_000, revealMs: 100, abandonAfterMs: 5_000, questionCount: 4)
        guard var (duel, _) = Duel.start(
            id: "d", bank: "b", players: players, questions: Fixture.questions(4), configuration: configuration,
            mode: count == 2 ? .ranked : .room, nowMs: 0)
        else { Issue.record("start failed"); return }
        let start = duel
        var log: [DuelInput] = []
        var now: Int64 = 0
        var taken: [Int: [Taken]] = [:]
        var standing = StandingRefusals()
        for raw in raws {
            var bits = UInt64(bitPattern: Int64(raw))
            func take(_ n: UInt64) -> Int { defer { bits /= n }; return Int(bits % n) }
            let lags: [Int64] = [0, 1, 5, 20, 60, 100, 250]
            let steps: [Int64] = [0, 1, 3, 10, 40, 90, 200, 700, 2_100]
            now += steps[take(UInt64(steps.count))]
            let player = players[take(UInt64(count))].id
            let input: DuelInput
            switch take(20) {
            case 0..<3: input = .lag(player: player, lagMs: lags[take(UInt64(lags.count))], atMs: now)
            case 3..<5: input = .advance(atMs: now)
            case 5: input = .forfeit(player: player, atMs: now)
            case 6: input = .disconnected(player: player, atMs: now)
            default:
                let index = duel.questionIndex
                input = .answer(player: player, questionIndex: index, choice: take(2) == 0 ? Fixture.correct(index)
                                : Fixture.wrong(index), atMs: now)
            }
            let before = duel
            let step = duel.apply(input)
            log.append(input)
            standing.note(input, step, then: duel)
            // The oracle: an answer taken (waiting or judged at once) with its credited time.
            if case .answer(let author, let index, let submission, let at) = input, step.rejection == nil
                || (step.settled[author] != nil && before.rounds.indices.contains(index)
                    && before.rounds[index].answer(of: author) == nil) {
                let lag = before.players.first { $0.id == author }?.lagMs ?? 0
                let opens = duel.rounds[index].opensAtMs
                let correct = submission.choice == Fixture.correct(index)
                taken[index, default: []].append(Taken(
                    player: author, creditedAtMs: max(opens, at - lag), atMs: at, correct: correct))
            }
            // Verdicts are for the question that was waiting before the step, or for the one just
            // answered when the answer settled it at once.
            let judgedIndex: Int
            if before.currentRound?.isSettling == true {
                judgedIndex = before.questionIndex
            } else if case .answer(_, let index, _, _) = input {
                judgedIndex = index
            } else {
                judgedIndex = before.questionIndex
            }
            for (author, _) in step.settled {
                let index = judgedIndex
                if let at = taken[index]?.lastIndex(where: { $0.player == author }) { taken[index]![at].verdicts += 1 }
            }
            if step.outcome == .settling, let round = duel.currentRound, let settle = round.settlesAtMs {
                // The settle waits at most the largest lag after the best correct answer's credited time.
                let maxLag = duel.players.map { $0.lagMs ?? 0 }.max() ?? 0
                let best = (round.pending ?? []).filter(\.correct).map(\.creditedAtMs).min()!
                #expect(settle <= best + maxLag && settle > now)
            }
            for round in duel.rounds {
                #expect(round.answers.filter(\.correct).count <= 1, "two winners")
                if round.revealCause == .won, let winner = round.answers.first(where: \.correct) {
                    let contenders = (taken[round.questionIndex] ?? []).filter(\.correct)
                    let best = contenders.map(\.creditedAtMs).min()
                    #expect(winner.creditedAtMs == best, "the winner was not credited first")
                    let tied = contenders.filter { $0.creditedAtMs == best }.map(\.atMs).min()
                    #expect(winner.atMs == tied, "a tie went to the later arrival")
                }
                if round.isRevealed { #expect(round.pending == nil && round.settlesAtMs == nil) }
            }
        }
        // Every answer that waited got exactly one verdict once its question closed.
        for round in duel.rounds where round.isRevealed {
            for answer in taken[round.questionIndex] ?? [] where answer.correct || answer.verdicts > 0 {
                let judgedAtOnce = round.answers.contains { $0.player == answer.player } && answer.verdicts == 0
                #expect(answer.verdicts == 1 || judgedAtOnce, "answer of \(answer.player) judged \(answer.verdicts) times")
            }
        }
        standing.checkAll(on: duel)
        var rebuilt = start
        rebuilt.replay(log)
        #expect(rebuilt == duel, "a rebuild from the log differs from the live state")
    }

    /// Without any lag (compensation off) no answer ever waits: version 1's rules exactly.
    @Test func withoutLagNothingWaits() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        let step = duel.answer(player: Fixture.alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_500)
        #expect(step.outcome == .answered(correct: true, points: 200))
        #expect(duel.rounds[0].revealCause == .won)
    }

    /// The race of the issue: a far player (lag 200) who answered 60 ms sooner wins, though
    /// their answer arrives 140 ms after the near player's.
    @Test func aFarPlayerWhoAnsweredFirstWins() {
        var (duel, _) = Fixture.duel()
        _ = duel.measured(Fixture.bob, lagMs: 200, atMs: 1_000)
        _ = duel.advance(nowMs: 3_000)
        // Alice (near) answers at 3,400; Bob saw the question 100 ms late and answered 60 ms
        // sooner than she did, so his answer arrives at 3,000 + 100 + 340 + 100 = 3,540.
        let near = duel.answer(player: Fixture.alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_400)
        #expect(near.outcome == .settling)
        #expect(near.events.isEmpty, "a waiting answer shows nothing")
        #expect(duel.currentRound?.settlesAtMs == 3_600)
        let far = duel.answer(player: Fixture.bob, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_540)
        #expect(far.outcome == .answered(correct: true, points: 200))
        #expect(far.settled[Fixture.alice] == .rejected(ProtocolError(.lockedOut)))
        #expect(far.events.map(\.kind) == [.answered, .reveal, .question])
        #expect(duel.rounds[0].answers.map(\.player) == [Fixture.bob])
        #expect(duel.rounds[0].answers.first?.creditedAtMs == 3_340)
        #expect(duel.players[1].score == 200)
    }

    /// Alone with a near player, the settle comes at its time, and the near player wins.
    @Test func theSettleComesAtItsTimeWhenNoOneBeatsTheAnswer() {
        var (duel, _) = Fixture.duel()
        _ = duel.measured(Fixture.bob, lagMs: 200, atMs: 1_000)
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: Fixture.alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_400)
        #expect(duel.nextDeadlineMs == 3_600)
        #expect(duel.advance(nowMs: 3_599).events.isEmpty)
        let settle = duel.advance(nowMs: 3_600)
        #expect(settle.settled[Fixture.alice] == .answered(correct: true, points: 200))
        #expect(settle.events.map(\.kind) == [.answered, .reveal, .question])
        // Too late by credited time: Bob's answer arriving at the settle is locked out.
        let late = duel.answer(player: Fixture.bob, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_600)
        #expect(late.rejection == ProtocolError(.lockedOut))
    }

    /// A far player who loses their connection is not waited for: the settle comes at once
    /// when they disconnect, and does not wait for them when they were gone already.
    @Test func aDisconnectedPlayerIsNotWaitedFor() {
        var (duel, _) = Fixture.duel()
        _ = duel.measured(Fixture.bob, lagMs: 200, atMs: 1_000)
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: Fixture.alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 3_400)
        #expect(duel.currentRound?.settlesAtMs == 3_600)
        let gone = duel.playerDisconnected(Fixture.bob, atMs: 3_450)
        #expect(gone.settled[Fixture.alice] == .answered(correct: true, points: 200))
        #expect(gone.events.map(\.kind) == [.answered, .reveal, .question])
        // The next question: Bob is still away, so Alice's right answer wins at once.
        _ = duel.advance(nowMs: 7_000)
        let next = duel.answer(player: Fixture.alice, questionIndex: 1, choice: Fixture.correct(1), atMs: 7_200)
        guard case .answered(correct: true, _) = next.outcome else {
            Issue.record("waited for a player with no connection: \(next.outcome)")
            return
        }
        #expect(duel.rounds[1].revealCause == .won)
    }
}
