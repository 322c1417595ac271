import Testing

@testable import DuelServer

struct MatcherGateTests {
    @Test func triggersDuringAPassCoalesceIntoOneMore() {
        var gate = MatcherGate()
        let first = gate.start()
        let second = gate.start()
        let third = gate.start()
        #expect(first && !second && !third)
        let next = gate.finished(created: 0)
        #expect(next.passes == 1 && !next.concurrent)
        let started = gate.start()
        let after = gate.finished(created: 0)
        #expect(started && after.passes == 0)
    }

    @Test func aBacklogKeepsSeveralPassesGoing() {
        var gate = MatcherGate(maxPasses: 3, fullPass: 200)
        _ = gate.start()
        let next = gate.finished(created: 250)
        #expect(next.passes == 3 && next.concurrent)
        let started = (0..<4).map { _ in gate.start(concurrent: true) }
        #expect(started == [true, true, true, false])
        #expect(gate.running == 3)
    }

    @Test func aFailedPassStartsNothing() {
        var gate = MatcherGate()
        _ = gate.start()
        _ = gate.start()
        let next = gate.finished(created: nil)
        #expect(next.passes == 0 && gate.running == 0)
    }
}
