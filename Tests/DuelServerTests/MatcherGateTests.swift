import Testing

@testable import DuelServer

struct MatcherGateTests {
    @Test func triggersDuringAPassCoalesceIntoOneMore() {
        var gate = MatcherGate(spacingMs: 0)
        let first = gate.start(nowMs: 0)
        let second = gate.start(nowMs: 1)
        let third = gate.start(nowMs: 2)
        #expect(first == .now && second == .coalesced && third == .coalesced)
        let next = gate.finished(created: 0)
        #expect(next.passes == 1 && !next.concurrent)
        let started = gate.start(nowMs: 3)
        let after = gate.finished(created: 0)
        #expect(started == .now && after.passes == 0)
    }

    @Test func aPassThatPairedSomeoneIsFollowedAtOnceByAnother() {
        var gate = MatcherGate(spacingMs: 50)
        #expect(gate.start(nowMs: 0) == .now)
        let next = gate.finished(created: 3)
        #expect(next.passes == 1 && !next.concurrent)
        // Not spaced: the queue may hold more pairs (a burst).
        #expect(gate.start(nowMs: 5) == .now)
        let after = gate.finished(created: 0)
        #expect(after.passes == 0)
    }

    @Test func triggersWithinTheSpacingAfterAFruitlessPassWaitForItsEnd() {
        var gate = MatcherGate(spacingMs: 50)
        #expect(gate.start(nowMs: 1_000) == .now)
        _ = gate.finished(created: 0)
        // Queue requests 10 and 30 ms later: the pass waits for the spacing's end.
        #expect(gate.start(nowMs: 1_010) == .at(1_050))
        #expect(gate.start(nowMs: 1_030) == .at(1_050))
        #expect(gate.running == 0)
        #expect(gate.start(nowMs: 1_050) == .now)
        _ = gate.finished(created: 0)
        #expect(gate.start(nowMs: 1_200) == .now)
    }

    @Test func aBacklogKeepsSeveralPassesGoing() {
        var gate = MatcherGate(maxPasses: 3, fullPass: 200, spacingMs: 50)
        _ = gate.start(nowMs: 0)
        let next = gate.finished(created: 250)
        #expect(next.passes == 3 && next.concurrent)
        // A backlog's passes do not wait for the spacing.
        let started = (0..<4).map { _ in gate.start(concurrent: true, nowMs: 5) }
        #expect(started == [.now, .now, .now, .coalesced])
        #expect(gate.running == 3)
    }

    @Test func aFailedPassStartsNothing() {
        var gate = MatcherGate()
        _ = gate.start(nowMs: 0)
        _ = gate.start(nowMs: 1)
        let next = gate.finished(created: nil)
        #expect(next.passes == 0 && gate.running == 0)
    }

    @Test func evictionsRunAtTheMatchersIntervalNotOnEveryPass() {
        var gate = MatcherGate(spacingMs: 50, evictionIntervalMs: 250)
        let answers = [1_000, 1_050, 1_249, 1_250].map { gate.evicts(nowMs: $0) }
        #expect(answers == [true, false, false, true])
    }

    @Test func anInstanceIsAloneThirtySecondsAfterItLastSawAnother() {
        var health = HealthStatus(startMs: 0)
        #expect(!health.isAlone(nowMs: 30_000) && health.isAlone(nowMs: 30_001))
        health.sawPeers(atMs: 40_000)
        #expect(!health.isAlone(nowMs: 60_000) && health.isAlone(nowMs: 70_001))
    }
}
