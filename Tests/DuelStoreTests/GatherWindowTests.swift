import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Synchronization
import Testing

/// The lanes' gather window (issue 25): when it waits, and what waiting must not break.
@Suite struct GatherWindowTests {
    static let ms: UInt64 = 1_000_000

    /// A steady `perSecond` input rate for five seconds (the estimate settles), one input per round.
    func steady(_ window: inout GatherWindow, perSecond: Int) -> UInt64 {
        var now: UInt64 = 10 * 1_000 * Self.ms
        for _ in 0..<(5 * perSecond) {
            now += 1_000 * Self.ms / UInt64(perSecond)
            window.observe(1, nowNs: now)
        }
        return now
    }

    @Test func aQuietLaneCommitsAtOnce() {
        var window = GatherWindow(maxWaitMs: 4)
        #expect(window.wait(pending: 1, oldestNs: 1_000 * Self.ms, nowNs: 1_000 * Self.ms) == nil)
        let now = steady(&window, perSecond: 50)
        // 50 inputs a second: not even one more expected within 4 ms.
        #expect(window.wait(pending: 1, oldestNs: now, nowNs: now) == nil)
    }

    @Test func aBusyLaneWaitsForAboutEightMoreInputsWithinTheBudget() throws {
        var window = GatherWindow(maxWaitMs: 10)
        var now = steady(&window, perSecond: 1_000)
        // About seven more inputs at 1,000 a second: some 7 ms.
        let wait = try #require(window.wait(pending: 1, oldestNs: now, nowNs: now))
        #expect(wait > 6 * Self.ms && wait <= 8 * Self.ms)
        // At 4,000 a second, under two milliseconds.
        var faster = GatherWindow(maxWaitMs: 10)
        now = steady(&faster, perSecond: 4_000)
        #expect(try #require(faster.wait(pending: 1, oldestNs: now, nowNs: now)) < 2 * Self.ms)
        // At 300 a second the budget bounds it.
        var slower = GatherWindow(maxWaitMs: 4)
        now = steady(&slower, perSecond: 300)
        #expect(slower.wait(pending: 1, oldestNs: now, nowNs: now) == 4 * Self.ms)
    }

    @Test func aFullRoundOrAnOffWindowNeverWaits() {
        var window = GatherWindow(maxWaitMs: 4)
        let now = steady(&window, perSecond: 1_000)
        #expect(window.wait(pending: 8, oldestNs: now, nowNs: now) == nil)
        #expect(window.wait(pending: 0, oldestNs: now, nowNs: now) == nil)
        var off = GatherWindow(maxWaitMs: 0)
        let later = steady(&off, perSecond: 1_000)
        #expect(off.wait(pending: 1, oldestNs: later, nowNs: later) == nil)
    }

    /// The budget is each input's: a round whose oldest input has already waited (it arrived
    /// while the last round committed) waits only for what is left, and not at all once spent.
    @Test func theBudgetCountsFromTheOldestInput() throws {
        var window = GatherWindow(maxWaitMs: 4)
        let now = steady(&window, perSecond: 1_000)
        let fresh = try #require(window.wait(pending: 1, oldestNs: now, nowNs: now))
        #expect(fresh == 4 * Self.ms)
        let late = try #require(window.wait(pending: 1, oldestNs: now - 2_500_000, nowNs: now))
        #expect(late == 1_500_000)
        #expect(window.wait(pending: 1, oldestNs: now - 4 * Self.ms, nowNs: now) == nil)
        // Half a millisecond left at 1,000 a second: not even one more input expected.
        #expect(window.wait(pending: 1, oldestNs: now - 3_500_000, nowNs: now) == nil)
    }

    @Test func theRateFadesWhenInputsStop() {
        var window = GatherWindow(maxWaitMs: 4)
        let now = steady(&window, perSecond: 1_000)
        #expect(window.wait(pending: 1, oldestNs: now, nowNs: now) != nil)
        // Five seconds without input: the estimate has decayed below a wait's worth.
        #expect(window.wait(pending: 1, oldestNs: now + 5_000 * Self.ms, nowNs: now + 5_000 * Self.ms) == nil)
    }

    /// With a long window on a real lane and Postgres: no completion runs before its input is
    /// committed, the inputs of one duel keep their order, and a deadline submitted inside the
    /// window is applied before an answer stamped after it (the answer is too late).
    @Test func waitingBreaksNeitherCommitsNorOrderNorDeadlines() async throws {
        let fixture = try StoreFixture(workers: 1)
        let rules = LaneBatchTests.rules
        let made = try await LaneBatchTests().duels(fixture, 3, nowMs: 1_000)
        // A 200 ms bound: at the warmed rate the lane then waits about 90 ms for the burst, room
        // for a loaded machine's late sleeps (40 ms left them about 25 ms).
        let lanes = DuelLanes(conninfo: fixture.conninfo, count: 1, origin: "gather", gatherMs: 200,
                              logger: .init(label: "gather"))
        defer { lanes.shutdown() }
        let seen = Mutex<[String: [DuelStep.Outcome]]>([:])
        let committedFirst = Mutex(true)
        let conninfo = fixture.conninfo
        @Sendable func submit(_ duel: Duel, _ input: DuelInput, check: Bool = true, done: @escaping @Sendable () -> Void) {
            lanes.submit(duel: duel.id, input) { result in
                let update = (try? result.get()) ?? nil
                // The completion runs after the commit: another connection sees the duel's new seq.
                if check, let update, let reader = try? PGConnection(conninfo) {
                    defer { reader.close() }
                    let stored = (try? reader.query("SELECT last_seq FROM duels WHERE id = \(duel.id)::uuid")[0].int("last_seq")) ?? -1
                    if stored < update.seq { committedFirst.withLock { $0 = false } }
                }
                seen.withLock { $0[duel.id, default: []].append(update?.outcome ?? .rejected(ProtocolError(.internal))) }
                done()
            }
        }
        // Warm the rate estimate so the lane waits: 80 harmless inputs to duel 2 at once. Their
        // completions open no reader: 80 connections opened one after another on the lane's
        // thread took seconds on a loaded machine, and the estimate decayed below the window's
        // threshold before the burst came (a CI run failed so).
        let warm = DispatchGroup()
        for index in 0..<80 {
            warm.enter()
            submit(made[2], .advance(atMs: 1_000 + Int64(index)), check: false) { warm.leave() }
        }
        #expect(warm.wait(timeout: .now() + 10) == .success)
        let roundsBefore = lanes.statistics.batches
        // Duel 0: two right answers, in stamp order; the first wins, the second is locked out.
        // Duel 1: its question closes at 1,000 + 10,000; the deadline, then an answer after it.
        let deadline = 1_000 + rules.answerWindowMs
        let group = DispatchGroup()
        for _ in 0..<4 { group.enter() }
        let right0 = made[0].questions[0].correctChoice!
        let right1 = made[1].questions[0].correctChoice!
        // Five milliseconds apart: without the window each would be a round of its own.
        let burst: [(Duel, DuelInput)] = [
            (made[0], .answer(player: made[0].players[1].id, questionIndex: 0, choice: right0, atMs: 1_500)),
            (made[1], .advance(atMs: deadline)),
            (made[0], .answer(player: made[0].players[0].id, questionIndex: 0, choice: right0, atMs: 1_501)),
            (made[1], .answer(player: made[1].players[0].id, questionIndex: 0, choice: right1, atMs: deadline + 1)),
        ]
        for (duel, input) in burst {
            submit(duel, input) { group.leave() }
            usleep(5_000)
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let outcomes = seen.withLock { $0 }
        #expect(outcomes[made[0].id] == [.answered(correct: true, points: 200), .rejected(ProtocolError(.lockedOut))])
        #expect(outcomes[made[1].id]?.last == .rejected(ProtocolError(.tooLate)))
        #expect(committedFirst.withLock { $0 })
        // The lane waited for the burst: its four inputs went in one round.
        #expect(lanes.statistics.batches == roundsBefore + 1)
        // Its busy time counts the rounds, not the waits.
        #expect(lanes.statistics.busyNs > 0)
    }
}
