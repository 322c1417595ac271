import Testing
@testable import DuelServer

extension ServerTests {
    /// The bookkeeping behind the server's one loop timer: no sockets, no clock.
    @Suite struct DeadlineScheduleTests {
        @Test func dueKeysComeOutEarliestFirstAndOnce() {
            var schedule = DeadlineSchedule()
            schedule.schedule("b", atMs: 200)
            schedule.schedule("a", atMs: 100)
            schedule.schedule("c", atMs: 300)
            #expect(schedule.nextDueMs == 100)
            #expect(schedule.popDue(nowMs: 99).isEmpty)
            #expect(schedule.popDue(nowMs: 200) == ["a", "b"])
            #expect(schedule.popDue(nowMs: 1_000) == ["c"])
            #expect(schedule.popDue(nowMs: 2_000).isEmpty)
            #expect(schedule.count == 0)
        }

        @Test func withoutReplaceAnEarlierDeadlineStays() {
            var schedule = DeadlineSchedule()
            schedule.schedule("d", atMs: 100)
            schedule.schedule("d", atMs: 500)
            #expect(schedule.popDue(nowMs: 100) == ["d"])
            #expect(schedule.popDue(nowMs: 500).isEmpty)
        }

        @Test func replaceMovesADeadlineEitherWayAndCancelDropsIt() {
            var schedule = DeadlineSchedule()
            schedule.schedule("d", atMs: 100)
            schedule.schedule("d", atMs: 500, replace: true)
            #expect(schedule.popDue(nowMs: 499).isEmpty)
            schedule.schedule("d", atMs: 300, replace: true)
            #expect(schedule.popDue(nowMs: 300) == ["d"])
            schedule.schedule("e", atMs: 100)
            schedule.cancel("e")
            #expect(schedule.popDue(nowMs: 1_000).isEmpty)
            #expect(schedule.count == 0)
        }

        /// A deadline retried after a failure reports when it was first due, not its retry's
        /// time: the lateness metric counts the whole delay (it read low before).
        @Test func aRetriedDeadlineReportsItsFirstDueTime() {
            var schedule = DeadlineSchedule()
            schedule.schedule("d", atMs: 100)
            #expect(schedule.popDueEntries(nowMs: 100).map(\.dueMs) == [100])
            schedule.retry("d", atMs: 600, firstDueMs: 100)
            #expect(schedule.popDueEntries(nowMs: 599).isEmpty)
            schedule.retry("d", atMs: 600, firstDueMs: 600)  // a second failure keeps the first time
            #expect(schedule.popDueEntries(nowMs: 600).map(\.dueMs) == [100])
            // The next deadline of the key is its own again.
            schedule.schedule("d", atMs: 900)
            #expect(schedule.popDueEntries(nowMs: 900).map(\.dueMs) == [900])
            // A newer deadline the caller knows replaces the retry and its first time.
            schedule.retry("e", atMs: 1_500, firstDueMs: 1_000)
            schedule.schedule("e", atMs: 1_200, replace: true)
            #expect(schedule.popDueEntries(nowMs: 1_500).map(\.dueMs) == [1_200])
        }
    }
}
