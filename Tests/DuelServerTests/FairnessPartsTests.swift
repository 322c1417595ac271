@testable import DuelServer
import DuelCore
@testable import DuelStore
import Testing

/// The pure parts of issue 26's measurement: the estimate, the policy, the ping matching and
/// the held reply's verdict.
@Suite struct FairnessPartsTests {
    @Test func theEstimateIsTheMeanOfTheLowestThirdOfTheLastNineAndDropsStalls() {
        var estimate = RoundTripEstimate()
        #expect(estimate.estimateMs == nil)
        estimate.add(50)
        #expect(estimate.estimateMs == 50)
        for sample in [40.0, 90, 700, 41, 300, 42, 80, 60, 70, 45] { estimate.add(sample) }
        // 700 is a stall; the last nine kept are 90, 41, 300, 42, 80, 60, 70, 45 and 40 is gone.
        #expect(estimate.samples == [40, 90, 41, 300, 42, 80, 60, 70, 45].suffix(9))
        #expect(estimate.estimateMs.map { abs($0 - 41) < 1e-9 } == true, "mean of 40, 41, 42")
        estimate.add(-1)
        #expect(estimate.samples.count == 9)
    }

    @Test func theLagIsCappedAndOnADirectConnectionBoundedByTheKernel() {
        let policy = LagPolicy(capMs: 250)
        #expect(policy.lag(estimateMs: 120.7, kernelRttUs: nil) == 120)
        #expect(policy.lag(estimateMs: 400, kernelRttUs: nil) == 250)
        // Delayed pongs: the kernel saw 1 ms, so at most 1 + 2 ms of credit.
        #expect(policy.lag(estimateMs: 200, kernelRttUs: 1_000) == 3)
        #expect(policy.lag(estimateMs: 80, kernelRttUs: 100_000) == 80)
        #expect(LagPolicy(capMs: 0).lag(estimateMs: 80, kernelRttUs: nil) == 0)
        #expect(!LagPolicy(capMs: 0).shouldReport(80, reported: 0))
        #expect(!policy.shouldReport(2, reported: 0) && policy.shouldReport(3, reported: 0))
        #expect(!policy.shouldReport(101, reported: 100) && policy.shouldReport(96, reported: 100))
    }

    @Test func aPongCountsOnlyForAPingThatIsOut() {
        var probe = RoundTripProbe()
        let first = probe.nextPing(nowUs: 1_000)
        let second = probe.nextPing(nowUs: 5_000)
        #expect(first.count == 5 && first[0] == RoundTripProbe.tag && first != second)
        // A forged number, a liveness pong and a short payload are ignored.
        #expect([RoundTripProbe.tag, 9, 9, 9, 9].withUnsafeBytes { probe.pong($0, nowUs: 9_000) } == nil)
        #expect([0x51].withUnsafeBytes { probe.pong($0, nowUs: 9_000) } == nil)
        #expect(second.withUnsafeBytes { probe.pong($0, nowUs: 45_000) } == 40)
        // The second's pong closes the first too (pongs come in order): its late pong is ignored.
        #expect(first.withUnsafeBytes { probe.pong($0, nowUs: 50_000) } == nil)
        probe.measure("d1")
        probe.reported = 120
        probe.measure("d1")
        #expect(probe.reported == 120)
        probe.measure(nil)
        #expect(probe.duel == nil && probe.reported == 0)
    }

    /// Pings every second until three samples show a near connection, which is not pinged again;
    /// every second for a far one; none outside a game; the first one at the game's first look.
    @Test func pingsComeEverySecondUntilAConnectionIsKnownToBeNear() {
        var probe = RoundTripProbe()
        let outside = probe.wantsPing(lookUs: 0)
        probe.measure("d1")
        let first = probe.wantsPing(lookUs: 301_000)
        #expect(!outside && first)
        var now: Int64 = 301_000
        for _ in 0..<3 {
            let ping = probe.nextPing(nowUs: now)
            #expect(probe.nextPingUs == now + 1_000_000)
            now += 1_000
            _ = ping.withUnsafeBytes { probe.pong($0, nowUs: now) }.map { probe.record($0, kernelRttUs: nil) }
            now += 999_000
        }
        // Three samples of 1 ms: near, no more pings, in this game or the next.
        let near = probe.wantsPing(lookUs: now + 10_000_000)
        probe.measure("d2")
        let nextGame = probe.wantsPing(lookUs: now + 20_000_000)
        #expect(probe.isNear && !near && !nextGame)
        for _ in 0..<9 { probe.record(80, kernelRttUs: 500) }
        // 80 ms by the pings, but the kernel saw 0.5 ms: a busy loop, not a far client.
        let busy = probe.wantsPing(lookUs: now + 25_000_000)
        probe.record(80, kernelRttUs: nil)
        #expect(!busy)
        let far = probe.wantsPing(lookUs: now + 30_000_000)
        _ = probe.nextPing(nowUs: now + 30_000_000)
        #expect(far && probe.nextPingUs == now + 31_000_000)
    }

    /// The sweep looks at a connection once a second: a ping written late (here 300 ms after the
    /// look that asked for it) is due again at the next look, a second after the first, not a
    /// look later.
    @Test func aPingWrittenLateKeepsItsSecond() {
        var probe = RoundTripProbe()
        probe.measure("d1")
        var look: Int64 = 5_000_000
        var asked: [Int64] = []
        for _ in 0..<5 {
            if probe.wantsPing(lookUs: look) {
                asked.append(look)
                _ = probe.nextPing(nowUs: look + 300_000)
            }
            look += 1_000_000
        }
        // With the sweep's old 100 ms of slack it was 5, 7 and 9 s: every other look.
        #expect(asked == [5_000_000, 6_000_000, 7_000_000, 8_000_000, 9_000_000])
    }

    @Test func aHeldReplyTakesItsVerdictFromItsQuestionsReveal() throws {
        var (duel, _) = Duel.start(
            id: "d", bank: "b",
            players: [DuelPlayer(id: "a", username: "a", rating: .newPlayer), DuelPlayer(id: "b", username: "b", rating: .newPlayer)],
            questions: (0..<3).map { DuelQuestion(id: Int64($0), prompt: "q\($0)", choices: ["x", "y"], correctChoice: 0) },
            nowMs: 0)!
        _ = duel.measured("b", lagMs: 200, atMs: 100)
        _ = duel.advance(nowMs: 3_000)
        let waiting = duel.answer(player: "a", questionIndex: 0, choice: 0, atMs: 3_400)
        #expect(waiting.outcome == .settling)
        let held = HeldReply(ref: .int(7), questionIndex: 0, afterSeq: duel.seq, arrivedMs: 3_400)
        let won = duel.answer(player: "b", questionIndex: 0, choice: 0, atMs: 3_540)
        let stored = won.events.map {
            StoredEvent(duelID: "d", seq: $0.seq, kind: $0.kind, atMs: $0.atMs, recordJSON: $0.record.json.serialized)
        }
        #expect(held.verdict(in: [], for: "a") == nil)
        #expect(held.verdict(in: stored, for: "a") == .refused(ProtocolError(.lockedOut)))
        let other = HeldReply(ref: nil, questionIndex: 0, afterSeq: held.afterSeq, arrivedMs: 3_540)
        #expect(other.verdict(in: stored, for: "b") == .answered(correct: true, points: 200))
        // A reveal of another question says nothing about this one.
        #expect(HeldReply(ref: nil, questionIndex: 1, afterSeq: 0, arrivedMs: 0).verdict(in: stored, for: "a") == nil)
    }
}
