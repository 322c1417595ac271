import TestSupport
@testable import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// A round's one statement (``DuelWrites/statement(now:payloads:)``) locks its duels before it
/// writes a log row, so that two instances' rounds on the same duels wait for each other in the
/// duels' id order instead of deadlocking on the log tables' keys (bench/NOTES.md, item 39).
@Suite struct WriteLockOrderTests {
    let batches = LaneBatchTests()

    /// The statement that writes `duels`' rows and events numbered as in `events`, in that order.
    func statement(rows duels: [Duel], events: [(Duel, Int)]) -> SQLQuery {
        var writes = DuelWrites()
        for duel in duels {
            let row = DuelStep.Row(phase: .question, lastSeq: 300, nextDeadlineMs: nil, questionsOpened: 1, result: nil)
            writes.rows.append((duel.id, row, 50))
        }
        writes.events = events.map { StoredEvent(duelID: $0.0.id, seq: $0.1, kind: .reveal, atMs: 0, recordJSON: "{}") }
        return writes.statement(now: "now", payloads: [])
    }

    /// Waits until `count` sessions of the database wait for a lock. `connection` must be outside a
    /// transaction: inside one, Postgres shows the sessions as they were at its first look.
    func waitForWaiters(_ connection: PGConnection, _ count: Int) async throws {
        for _ in 0..<500 {
            let waiting = try connection.query("""
                SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()
                """)[0].int("n")
            if waiting >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("\(count) sessions never waited for a lock")
    }

    /// Runs `query` on a connection of the pool: nil when it committed, else the error's SQLSTATE.
    func run(_ fixture: StoreFixture, _ query: SQLQuery) -> Task<String?, Never> {
        Task {
            do {
                _ = try await fixture.pool.run { try $0.query(query) }
                return nil
            } catch let error as PGError {
                return error.sqlState ?? "\(error)"
            } catch {
                return "\(error)"
            }
        }
    }

    /// Both rounds write duels x and y, as when two instances fire the same deadlines. A third
    /// transaction holds one of y's event numbers, so the first round stops among its inserts. The
    /// second round, whose events come in the other order, must then wait for the first at x's
    /// row, holding nothing the first needs: the first commits, and the second fails on the log's
    /// key (a duel moved on, which the locking path redoes). Before, the statement's inserts ran
    /// before its UPDATE, the second round held (y, 101) while it waited for (x, 100), and
    /// Postgres broke the cycle after `deadlock_timeout` by failing a round with 40P01.
    @Test func twoRoundsOnTheSameDuelsWaitInIdOrderInsteadOfDeadlocking() async throws {
        let fixture = try StoreFixture(workers: 2)
        let made = try await batches.duels(fixture, 2).sorted { $0.id < $1.id }
        let (x, y) = (made[0], made[1])
        let blocker = try fixture.connect(), watcher = try fixture.connect()
        defer { blocker.close(); watcher.close() }
        try blocker.execute(script: """
            BEGIN; INSERT INTO duel_events (duel_id, seq, kind, at_ms, record) VALUES ('\(y.id)', 100, 'reveal', 0, '{}')
            """)
        let first = run(fixture, statement(rows: [x, y], events: [(x, 100), (y, 100), (y, 101)]))
        try await waitForWaiters(watcher, 1)
        let second = run(fixture, statement(rows: [x, y], events: [(y, 101), (x, 100)]))
        try await waitForWaiters(watcher, 2)
        try blocker.execute(script: "ROLLBACK")
        let (one, two) = (await first.value, await second.value)
        #expect(one == nil)
        #expect(two == "23505")
        let stored = try blocker.query("""
            SELECT array_agg(duel_id::text || ':' || seq ORDER BY duel_id, seq)::text AS events
              FROM duel_events WHERE seq >= 100
            """)[0].string("events")
        #expect(stored == "{\(x.id):100,\(y.id):100,\(y.id):101}")
    }
}
