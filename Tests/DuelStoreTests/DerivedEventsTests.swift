import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Event reads derive a duel's events from its input log (``DuelRepository/derivedEvents(_:)``):
/// stored rows give only the start's events and what lies past the log.
@Suite struct DerivedEventsTests {
    let batches = LaneBatchTests()

    /// A duel in which seat 0 answered wrong and seat 1 right (question 0 revealed, question 1
    /// open), the events the lane made, and a connection.
    func played() async throws -> (Duel, [StoredEvent], PGConnection, StoreFixture) {
        let fixture = try StoreFixture(workers: 1)
        let duel = try await batches.duels(fixture, 1)[0]
        let connection = try fixture.connect()
        var lane = DuelLaneState()
        var events: [StoredEvent] = []
        for item in [batches.answer(duel, seat: 0, correct: false), batches.answer(duel, seat: 1, correct: true, at: 1_600)] {
            events += try #require(try DuelRepository(connection).applyInputs([item], lane: &lane)[0].get()).events
        }
        return (duel, events, connection, fixture)
    }

    func storedEvents(_ connection: PGConnection, _ duel: Duel) throws -> [StoredEvent] {
        try connection.query("""
            SELECT seq, kind, at_ms, record::text AS record FROM duel_events WHERE duel_id = \(duel.id)::uuid ORDER BY seq
            """).map {
            StoredEvent(duelID: duel.id, seq: try $0.int("seq"), kind: DuelEventKind(rawValue: try $0.string("kind"))!,
                        atMs: try $0.int64("at_ms"), recordJSON: try $0.string("record"))
        }
    }

    /// Every stored record after the start is replaced, and every read still returns what the lane
    /// made: the replay's events, not the rows.
    @Test func readsReturnTheReplayedEventsNotTheStoredRows() async throws {
        let (duel, made, connection, _) = try await played()
        defer { connection.close() }
        let start = try storedEvents(connection, duel).filter { $0.seq < made[0].seq }
        #expect(!start.isEmpty && !made.isEmpty)
        _ = try connection.query("""
            UPDATE duel_events SET record = '{"tampered": true}' WHERE duel_id = \(duel.id)::uuid AND seq >= \(made[0].seq)
            """)
        let repository = DuelRepository(connection)
        #expect(try repository.events(duel: duel.id, afterSeq: 0) == start + made)
        // A duel id in capitals is the same duel (its events name it as the database does).
        #expect(try repository.events(duel: duel.id.uppercased(), afterSeq: 0) == start + made)
        #expect(try repository.events(duel: duel.id, afterSeq: made[0].seq) == Array(made.dropFirst()))
        #expect(try repository.events(duel: duel.id, afterSeq: 0, upToSeq: made[0].seq) == start + [made[0]])
        let batch = try repository.events(after: [(duel.id, 0), (UUID().uuidString.lowercased(), 0), ("not-a-duel", 0)])
        #expect(batch.count == 1 && batch[duel.id]?.events == start + made)
        #expect(batch[duel.id]?.players == duel.players.map(\.id))
        #expect(try repository.liveDuel(player: duel.players[0].id) == Array(made.suffix(2)))
        #expect(try repository.liveDuelID(player: duel.players[1].id)?.lastSeq == made.last!.seq)
    }

    /// A lane that does not store every event (the default) stores a round's `complete` only: a
    /// whole game leaves its start's rows and its end, and reads still give every event.
    @Test func aRoundStoresOnlyItsGamesEnd() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duel = try await batches.duels(fixture, 1)[0]
        let connection = try fixture.connect()
        defer { connection.close() }
        let start = try storedEvents(connection, duel)
        var lane = DuelLaneState()
        var made: [StoredEvent] = []
        for item in [batches.answer(duel, seat: 0, correct: true),
                     DuelInputItem(duelID: duel.id, input: .forfeit(player: duel.players[1].id, atMs: 1_700))] {
            made += try #require(try DuelRepository(connection).applyInputs([item], lane: &lane)[0].get()).events
        }
        #expect(made.count > 2 && made.last?.kind == .complete)
        #expect(try storedEvents(connection, duel) == start + [made.last!])
        #expect(try DuelRepository(connection).events(duel: duel.id, afterSeq: 0) == start + made)
    }

    /// A duel with no input yet has only its start's stored events; one whose log an operator's
    /// archive deleted keeps its final record only.
    @Test func startsAndArchivedDuelsComeFromTheirRows() async throws {
        let fixture = try StoreFixture(workers: 1)
        let duels = try await batches.duels(fixture, 2)
        let connection = try fixture.connect()
        defer { connection.close() }
        let repository = DuelRepository(connection)
        let fresh = try storedEvents(connection, duels[0])
        #expect(fresh.first?.kind == .`init`)
        #expect(try repository.events(duel: duels[0].id, afterSeq: 0) == fresh)
        var lane = DuelLaneState()
        _ = repository.applyInputs([batches.answer(duels[1], seat: 0, correct: true)], lane: &lane)
        let ended = try #require(try repository.applyInputs(
            [DuelInputItem(duelID: duels[1].id, input: .forfeit(player: duels[1].players[1].id, atMs: 1_700))], lane: &lane)[0].get())
        #expect(ended.finished)
        _ = try connection.query("UPDATE duels SET finished_at = now() - interval '1 day' WHERE id = \(duels[1].id)::uuid")
        _ = try connection.query("SELECT ops.archive_events(interval '1 hour')")
        #expect(try connection.query("SELECT count(*) AS n FROM duel_inputs WHERE duel_id = \(duels[1].id)::uuid")[0].int("n") == 0)
        #expect(try repository.events(duel: duels[1].id, afterSeq: 0) == [ended.events.last!])
    }

    /// A read starts from the state an earlier read kept when it is not past the read, so the start
    /// is not read again: with an unreadable start the next input's events still derive. A read
    /// from before the kept state replays from the start, which here fails: that duel then gives
    /// its stored rows, and the read of another duel with it, and a sign-in into it, still answer.
    @Test func aReadContinuesFromTheStateAnEarlierReadKept() async throws {
        let (duel, made, connection, fixture) = try await played()
        defer { connection.close() }
        let replays = DuelReplays()
        let repository = DuelRepository(connection)
        #expect(try repository.events(duel: duel.id, afterSeq: made.last!.seq, replays: replays).isEmpty)
        #expect(replays.latest(of: duel.id)?.version == 2)
        _ = try connection.query("UPDATE duel_starts SET base_state = '{}' WHERE duel_id = \(duel.id)::uuid")
        let wrong = DuelInputItem(duelID: duel.id, input: .answer(
            player: duel.players[0].id, questionIndex: 1, choice: (duel.questions[1].correctChoice! + 1) % duel.questions[1].choices.count,
            atMs: 2_000))
        // The lane holds the duel's state too (it catches up from it), so the input commits.
        let cached = try #require(replays.latest(of: duel.id))
        var lane = DuelLaneState()
        lane.cache.remember(cached.duel, version: cached.version)
        let next = try #require(try DuelRepository(connection).applyInputs([wrong], lane: &lane)[0].get())
        #expect(!next.events.isEmpty)
        #expect(try repository.events(duel: duel.id, afterSeq: made.last!.seq, replays: replays) == next.events)
        #expect(replays.latest(of: duel.id)?.version == 3)
        let start = try storedEvents(connection, duel).filter { $0.seq < made[0].seq }
        #expect(try repository.events(duel: duel.id, afterSeq: 0, replays: replays) == start)
        let other = try await batches.duels(fixture, 1)[0]
        let both = try repository.events(after: [(duel.id, 0), (other.id, 0)], replays: replays)
        let otherStart = try storedEvents(connection, other)
        #expect(both[duel.id]?.events == start && both[other.id]?.events == otherStart)
        // Its newest events are not stored: a sign-in finds none, and goes on without them.
        #expect(try repository.liveDuel(player: duel.players[0].id, replays: replays).isEmpty)
    }
}
