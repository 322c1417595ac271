import Foundation
import PropertyBased
import Testing
@testable import DuelCore

/// The N-player rules (issue 12) over N = 1…4: random inputs, invariants after every step.
@Suite struct MultiPlayerPropertyTests {
    static func players(_ count: Int) -> [DuelPlayer] {
        (0..<count).map { DuelPlayer(id: "p-\($0)", username: "player\($0)", rating: .newPlayer) }
    }

    /// A room game of three players and `questions` questions, no countdown or reveal pause.
    static func roomOfThree(questions: Int) -> Duel {
        Duel.start(
            id: "d", bank: "b", players: players(3), questions: Fixture.questions(questions),
            configuration: DuelConfiguration(
                countdownMs: 0, answerWindowMs: 10_000, revealMs: 0, abandonAfterMs: 60_000, questionCount: questions),
            mode: .room, nowMs: 0)!.0
    }

    static func mode(for count: Int) -> DuelMode {
        switch count {
        case 1: .practice
        case 2: .challenge
        default: .room
        }
    }

    @Test func invariantsHoldForOneToFourPlayers() async {
        await propertyCheck(
            count: 2_000,
            input: Gen.int(in: 0...Int.max).array(of: 1...150), Gen.int(in: 1...4)
        ) { raws, count in
            run(raws, players: count)
        }
    }

    func run(_ raws: [Int], players count: Int) {
        let configuration = DuelConfiguration(
            countdownMs: 0, answerWindowMs: 1_000, revealMs: 0, abandonAfterMs: 3_000, questionCount: 4)
        let questions = Fixture.questions(4)
        guard var (duel, _) = Duel.start(
            id: "d", bank: "b", players: Self.players(count), questions: questions,
            configuration: configuration, mode: Self.mode(for: count), nowMs: 0)
        else {
            Issue.record("start failed for \(count) players")
            return
        }
        var now: Int64 = 0
        var reveals: [Int: Int] = [:]
        var standing = StandingRefusals()
        for raw in raws {
            var bits = UInt64(bitPattern: Int64(raw))
            func take(_ n: UInt64) -> Int { defer { bits /= n }; return Int(bits % n) }
            let dts: [Int64] = [0, 1, 50, 400, 999, 1_001, 3_500]
            now += dts[take(UInt64(dts.count))]
            let seat = take(UInt64(count))
            let player = duel.players[seat].id
            let input: DuelInput = switch take(10) {
            case 0..<6: .answer(player: player, questionIndex: max(0, duel.rounds.count - 1), choice: take(4), atMs: now)
            case 6: .forfeit(player: player, atMs: now)
            case 7: .disconnected(player: player, atMs: now)
            case 8: .reconnected(player: player, atMs: now)
            default: .advance(atMs: now)
            }
            let step = duel.apply(input)
            for event in step.events where event.kind == .reveal {
                reveals[event.record.question?.index ?? -1, default: 0] += 1
            }
            check(duel)
            standing.note(input, step, then: duel)
        }
        standing.checkAll(on: duel)
        // Reveal once: no question is revealed twice.
        #expect(reveals.values.allSatisfy { $0 == 1 }, "\(reveals)")
        // Play out the game (each transition times the next from itself): placements are
        // consistent with scores.
        for _ in 0..<20 where duel.phase != .finished {
            now = max(now, duel.nextDeadlineMs ?? now)
            _ = duel.advance(nowMs: now)
        }
        #expect(duel.phase == .finished)
        guard let result = duel.result, let places = result.placements else {
            Issue.record("no result")
            return
        }
        #expect(places.count == count)
        for a in duel.players {
            for b in duel.players where a.id != b.id {
                let (pa, pb) = (places[a.id]!, places[b.id]!)
                // Among players who stayed (and with no two-player forfeit), more points place higher.
                if a.leftAtMs == nil, b.leftAtMs == nil, result.winner == nil || count != 2 {
                    if a.score > b.score { #expect(pa < pb) }
                    if a.score == b.score { #expect(pa == pb) }
                }
                if a.leftAtMs == nil, b.leftAtMs != nil { #expect(pa < pb) }
            }
        }
        #expect(places.values.contains(1))
        // Unrated modes never move a rating.
        if !duel.isRated {
            #expect(result.outcomes.allSatisfy { $0.rating.before == $0.rating.after })
        }
        #expect(duel.record().rated == duel.isRated && duel.record().mode == duel.mode)
    }

    func check(_ duel: Duel) {
        for round in duel.rounds {
            // At most one scorer per question: the first correct answer locks everyone else out.
            #expect(round.answers.filter(\.correct).count <= 1)
            if let winner = round.answers.firstIndex(where: \.correct) {
                #expect(winner == round.answers.count - 1, "answers accepted after the winning one")
                #expect(round.revealCause == .won)
            }
            // Each player answers a question at most once.
            #expect(Set(round.answers.map(\.player)).count == round.answers.count)
        }
        // Scores are the sums of points.
        for player in duel.players {
            let sum = duel.rounds.reduce(0) { $0 + $1.points(of: player.id) }
            #expect(player.score == sum)
        }
        // Nothing secret before the reveal (rule 10): an open question's record shows no pick or key.
        let record = duel.record()
        if record.state == .question { #expect(record.reveal == nil) }
    }

    @Test func aWrongAnswerLocksOutOnlyItsAuthorAndTheLastAnswerReveals() {
        var duel = Self.roomOfThree(questions: 2)
        _ = duel.answer(player: "p-0", questionIndex: 0, choice: Fixture.wrong(0), atMs: 100)
        #expect(duel.answer(player: "p-0", questionIndex: 0, choice: Fixture.correct(0), atMs: 150).rejection?.code == .alreadyAnswered)
        _ = duel.answer(player: "p-1", questionIndex: 0, choice: Fixture.wrong(0), atMs: 200)
        #expect(duel.phase == .question)
        let last = duel.answer(player: "p-2", questionIndex: 0, choice: Fixture.wrong(0), atMs: 300)
        #expect(last.kinds.contains(.reveal))
        // Question 1: the first correct answer locks out both others.
        _ = duel.answer(player: "p-1", questionIndex: 1, choice: Fixture.correct(1), atMs: 400)
        #expect(duel.phase == .finished)
        #expect(duel.result?.placements == ["p-1": 1, "p-0": 2, "p-2": 2])
        #expect(duel.result?.winner == nil)
        #expect(duel.record().result?.placements == ["p-1": 1, "p-0": 2, "p-2": 2])
    }

    @Test func aPlayerWhoLeavesAThreePlayerGameIsOutAndTheOthersPlayOn() {
        var duel = Self.roomOfThree(questions: 3)
        _ = duel.answer(player: "p-2", questionIndex: 0, choice: Fixture.correct(0), atMs: 100)
        _ = duel.forfeit(player: "p-2", atMs: 200)
        #expect(duel.phase != .finished)
        #expect(duel.answer(player: "p-2", questionIndex: 1, choice: 0, atMs: 300).rejection?.code == .duelOver)
        // Both remaining answered wrong: revealed without waiting for the one who left.
        _ = duel.answer(player: "p-0", questionIndex: 1, choice: Fixture.wrong(1), atMs: 400)
        let step = duel.answer(player: "p-1", questionIndex: 1, choice: Fixture.wrong(1), atMs: 500)
        #expect(step.kinds.contains(.reveal))
        _ = duel.forfeit(player: "p-1", atMs: 600)
        // One left: the game ends; the leavers come last despite p-2's points.
        #expect(duel.phase == .finished)
        #expect(duel.result?.placements?["p-0"] == 1)
        #expect((duel.result?.placements?["p-2"] ?? 0) > 1)
    }

    @Test func practiceIsOnePlayerUnratedAndEndsOnForfeit() {
        var (duel, _) = Duel.start(
            id: "d", bank: "b", players: Self.players(1), questions: Fixture.questions(2),
            mode: .practice, nowMs: 0)!
        #expect(!duel.isRated && duel.record().mode == .practice)
        _ = duel.advance(nowMs: 3_000)
        let step = duel.answer(player: "p-0", questionIndex: 0, choice: Fixture.wrong(0), atMs: 3_100)
        #expect(step.kinds.contains(.reveal), "alone, a wrong answer is everyone's answer")
        _ = duel.forfeit(player: "p-0", atMs: 3_200)
        #expect(duel.phase == .finished && duel.result?.winner == nil && duel.result?.reason == .forfeit)
    }

    @Test func modesAllowTheirPlayerCounts() {
        let questions = Fixture.questions(3)
        #expect(Duel.start(id: "d", bank: "b", players: Self.players(3), questions: questions, nowMs: 0) == nil)
        #expect(Duel.start(id: "d", bank: "b", players: Self.players(1), questions: questions, mode: .room, nowMs: 0) == nil)
        #expect(Duel.start(id: "d", bank: "b", players: Self.players(5), questions: questions, mode: .room, nowMs: 0) == nil)
        #expect(Duel.start(id: "d", bank: "b", players: Self.players(4), questions: questions, mode: .room, nowMs: 0) != nil)
        let twice = [Self.players(1)[0], Self.players(1)[0]]
        #expect(Duel.start(id: "d", bank: "b", players: twice, questions: questions, mode: .room, nowMs: 0) == nil)
    }
}

/// Engine states stored before modes existed must still decode, as ranked duels.
@Suite struct ModeStorageTests {
    @Test func aRankedStateStoresNoNewKeysAndAStateWithoutThemIsRanked() throws {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        _ = duel.forfeit(player: Fixture.bob, atMs: 3_500)
        let text = String(decoding: try JSONEncoder().encode(duel), as: UTF8.self)
        #expect(!text.contains("storedMode") && !text.contains("leftAtMs"))
        // A result stored before placements existed decodes, and the record derives them.
        // As stored before placements and the rated flag existed (key order varies: edit the
        // object, not the text).
        var object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var result = try #require(object["result"] as? [String: Any])
        result["placements"] = nil
        result["rated"] = nil
        object["result"] = result
        let old = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        #expect(!old.contains("placements") && !old.contains("rated"))
        let decoded = try JSONDecoder().decode(Duel.self, from: Data(old.utf8))
        #expect(decoded.mode == .ranked && decoded.isRated)
        #expect(decoded.record().result?.placements == ["p-alice": 1, "p-bob": 2])
    }
}

/// Refusals that stand (``DuelStep/refusalStands``) in a random game: each must be refused again
/// by every later state, as the store would redo it there (the same input, with its own stamp).
/// The latest few are tried after every step, all of them on the last state.
struct StandingRefusals {
    private(set) var inputs: [DuelInput] = []

    mutating func note(_ input: DuelInput, _ step: DuelStep, then duel: Duel) {
        if step.refusalStands {
            #expect(step.rejection != nil)
            inputs.append(input)
        }
        for input in inputs.suffix(3) { refusedAgain(input, on: duel) }
    }

    func checkAll(on duel: Duel) {
        for input in inputs { refusedAgain(input, on: duel) }
    }

    private func refusedAgain(_ input: DuelInput, on later: Duel) {
        var copy = later
        #expect(copy.apply(input).rejection != nil, "\(input) stood, but a later state took it")
    }
}
