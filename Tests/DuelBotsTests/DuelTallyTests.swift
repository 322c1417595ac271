import Testing
@testable import DuelBots

/// How a run counts duels and keeps `--duels` exact, without sockets (issue 23, item 10).
@Suite struct DuelTallyTests {
    /// Both bots of a duel see its `complete`: it counts once (it once counted per bot, or
    /// not at all when the bot listed first had left).
    @Test func aDuelCountsOnceWhicheverBotSeesItFirst() {
        let tally = DuelTally(target: nil)
        #expect(tally.completed(duel: 7))
        #expect(!tally.completed(duel: 7))
        #expect(tally.completed(duel: 8))
        #expect(tally.counted == 2)
        #expect(!tally.reached)
    }

    @Test func theCountStopsAtTheTarget() {
        let tally = DuelTally(target: 2)
        tally.completed(duel: 1)
        #expect(!tally.reached)
        tally.completed(duel: 2)
        #expect(tally.reached)
        // Completed past the target (a duel against a client outside the run): kept apart.
        #expect(!tally.completed(duel: 3))
        #expect(tally.counted == 2)
        #expect(tally.pastTarget == 1)
    }

    /// 20 ranked bots for 10 duels: all 20 may queue, a 21st may not; a completed duel's two
    /// shares become one counted duel, and at the target nothing is held and nobody may queue.
    @Test func sharesAdmitOnlyTheDuelsStillNeeded() {
        let tally = DuelTally(target: 10)
        #expect((0..<20).allSatisfy { _ in tally.reserve(halves: 1) })
        #expect(!tally.reserve(halves: 1))
        for duel in 0..<10 {
            tally.completed(duel: UInt64(duel))
            // The second bot of the duel sees it complete too, and each asks for a next game.
            tally.completed(duel: UInt64(duel))
            tally.release(halves: 1)
            tally.release(halves: 1)
            if duel < 9 { #expect(!tally.reserve(halves: 1), "duel \(duel)") }
        }
        #expect(tally.counted == 10)
        #expect(tally.reached)
        #expect(tally.held == 0)
        #expect(!tally.reserve(halves: 0))
    }

    /// A freed share (a duel given up before it completed) lets another bot in.
    @Test func aShareGivenBackIsTakenAgain() {
        let tally = DuelTally(target: 1)
        #expect(tally.reserve(halves: 2))  // a room's host: a whole game
        #expect(!tally.reserve(halves: 1))
        tally.release(halves: 2)
        #expect(tally.reserve(halves: 1))
        #expect(tally.reserve(halves: 1))
        #expect(!tally.reserve(halves: 1))
    }

    @Test func withoutATargetEveryShareIsAdmitted() {
        let tally = DuelTally(target: nil)
        #expect((0..<1_000).allSatisfy { _ in tally.reserve(halves: 2) })
        #expect(!tally.reached)
    }
}
