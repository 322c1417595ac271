import DuelCore
import Testing
@testable import DuelBots

/// What the report and its human summary say about refusals and counts (issue 23, item 10).
@Suite struct BotReportTests {
    /// Refused requests are errors by their code; the game's own races are kept apart.
    @Test func refusalsAreCountedByCode() {
        let stats = BotStats(duelTarget: 3)
        for _ in 0..<3 { stats.refused("rate_limited", expected: BotRequest.login.expects("rate_limited")) }
        stats.refused("username_taken", expected: BotRequest.login.expects("username_taken"))
        stats.refused("too_late", expected: BotRequest.answer(sentAt: 0, duel: 1, index: 0).expects("too_late"))
        stats.refused("already_answered", expected: BotRequest.answer(sentAt: 0, duel: 1, index: 0).expects("already_answered"))
        stats.refused("not_queued", expected: BotRequest.cancel.expects("not_queued"))
        stats.refused("not_queued", expected: BotRequest.queue.expects("not_queued"))
        stats.tally.completed(duel: 1)
        stats.tally.completed(duel: 1)
        var config = BotConfiguration()
        config.duels = 3
        let report = stats.report(configuration: config, elapsed: 2)
        #expect(report["errors"] == .object(["already_answered": 1, "not_queued": 1, "rate_limited": 3, "username_taken": 1]))
        #expect(report["expected_refusals"] == .object(["not_queued": 1, "too_late": 1]))
        #expect(report["duels"] == .int(1))
        #expect(report["duels_target"] == .int(3))
        #expect(report["duels_past_target"] == .int(0))
    }

    @Test func expectedRefusalsAreTheGamesRacesOnly() {
        let answer = BotRequest.answer(sentAt: 0, duel: 1, index: 0)
        #expect(["locked_out", "too_late", "duel_over"].allSatisfy(answer.expects))
        #expect(!answer.expects("wrong_question"))
        #expect(BotRequest.forfeitAtEnd.expects("duel_over") && BotRequest.forfeitLeftover.expects("duel_over"))
        #expect(!BotRequest.forfeitAtEnd.expects("not_in_duel"))
        for request in [BotRequest.login, .queue, .room, .resume] {
            #expect(!["rate_limited", "busy", "username_taken", "unauthorized", "not_queued", "duel_over"].contains(where: request.expects))
        }
    }

    @Test func summaryHasTheFiguresAPersonLooksFor() {
        let report: JSONValue = .object([
            "bots": 20, "seconds": .double(2.6), "duels": 10, "duels_target": 10, "duels_past_target": 0,
            "answers": 60, "duels_per_second": .double(3.8), "answers_per_second": .double(23.1),
            "errors": .object(["rate_limited": 12, "username_taken": 2]), "expected_refusals": .object(["too_late": 3]),
            "violations": .object([:]),
            "time_to_match": .object(["count": 20, "p50_ms": .double(11.2), "p90_ms": 30, "p99_ms": .double(40.15), "max_ms": 41]),
            "answer_to_reply": .object(["count": 60, "p50_ms": .double(1.2), "p90_ms": 3, "p99_ms": .double(4.8), "max_ms": 5]),
            "answer_to_opponent_answered": .object(["count": 0, "p50_ms": 0, "p90_ms": 0, "p99_ms": 0, "max_ms": 0]),
            "reveal_lateness": .object(["count": 0, "p50_ms": 0, "p90_ms": 0, "p99_ms": 0, "max_ms": 0]),
            "cpu_us_per_answer": .double(63.8), "acknowledged_answers": 0, "reconnects": 0,
        ])
        #expect(BotSummary.lines(report) == [
            "duels:      10 of 10 (3.8/s)",
            "answers:    60 (23.1/s)",
            "errors:     rate_limited 12, username_taken 2",
            "expected refusals: too_late 3",
            "violations: none",
            "elapsed:    2.6 s, 20 bots",
            "latency:    match p50 11.2 p99 40.15 ms; answer reply p50 1.2 p99 4.8 ms",
            "cpu:        63.8 µs per answer",
        ])
    }

    /// A run that ends while bots still play says which games it cut off (a run with a duel
    /// target that ran to its deadline names the games that never completed).
    @Test func gamesStillPlayedAtTheEndAreListed() {
        let stats = BotStats(duelTarget: 2)
        stats.unfinished(duel: "b-duel", lastSeq: 7, answeredIndex: 2, silentMicros: 1_500_000)
        stats.unfinished(duel: "a-duel", lastSeq: 30, answeredIndex: 9, silentMicros: 20_000_000)
        // Its other bot: the game is listed once, as the first of its bots said.
        stats.unfinished(duel: "a-duel", lastSeq: 31, answeredIndex: 9, silentMicros: 10_000)
        let report = stats.report(configuration: BotConfiguration(), elapsed: 45)
        #expect(report["unfinished_at_end"] == .object([
            "count": 2,
            "sample": .array(["a-duel seq=30 answered=9 silent_ms=20000", "b-duel seq=7 answered=2 silent_ms=1500"]),
        ]))
        #expect(BotSummary.lines(report).contains("unfinished: 2 games still played at the end"))
        #expect(!BotSummary.lines(BotStats().report(configuration: BotConfiguration(), elapsed: 1)).contains { $0.hasPrefix("unfinished") })
    }

    /// A run without a target, errors or latencies still says so in plain words.
    @Test func summaryOfAnEmptyRun() {
        let config = BotConfiguration()
        let lines = BotSummary.lines(BotStats().report(configuration: config, elapsed: 1))
        #expect(lines.first == "duels:      0 (0/s)")
        #expect(lines.contains("errors:     none"))
        #expect(lines.contains("violations: none"))
        #expect(lines.contains("elapsed:    1 s, 10 bots"))
        #expect(!lines.contains { $0.hasPrefix("latency:") || $0.hasPrefix("cpu:") })
    }
}
