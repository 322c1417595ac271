import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// What batching inputs into one transaction could break (docs/ARCHITECTURE.md).
@Suite struct LaneBatchTests {
    static let rules = DuelConfiguration(countdownMs: 0, answerWindowMs: 10_000, revealMs: 0, questionCount: 5)

    /// `count` fresh duels of general-science, question 0 open since `nowMs`.
    func duels(
        _ fixture: StoreFixture, _ count: Int, nowMs: Int64 = 1_000, bank slug: String = "general-science"
    ) async throws -> [Duel] {
        let ids = try await fixture.players(2 * count, prefix: "b\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        if slug == "mixed", try QuizRepository(connection).bank(slug: slug) == nil {
            try connection.query("SELECT ops.create_bank('mixed', 'Every type')")
            try connection.query("""
                SELECT ops.import_csv('mixed', \("""
                type,prompt,choices,answer,matching,tolerance
                single,One?,a|b|c|d,B,,
                multiple,Several?,a|b|c|d,A|C,,
                boolean,True?,,false,,
                text,Peru?,,Lima|Lima city,rough,
                number,Bones?,,206,,0.5
                """))
                """)
        }
        let bank = try #require(try QuizRepository(connection).bank(slug: slug)).id
        let games = stride(from: 0, to: ids.count, by: 2).map { [ids[$0], ids[$0 + 1]] }
        return try connection.transaction {
            try DuelRepository($0).createGames(bankID: bank, games: games, mode: .ranked, configuration: Self.rules, nowMs: nowMs).map(\.duel)
        }
    }

    func answer(_ duel: Duel, seat: Int, correct: Bool, at: Int64 = 1_500) -> DuelInputItem {
        let right = duel.questions[0].correctChoice!
        return DuelInputItem(duelID: duel.id, input: .answer(
            player: duel.players[seat].id, questionIndex: 0, choice: correct ? right : (right + 1) % duel.questions[0].choices.count,
            atMs: at))
    }

    @Test func twoAnswersToOneDuelInOneBatchKeepTheirOrder() async throws {
        let fixture = try StoreFixture(workers: 1)
        let (a, b) = try await { let d = try await duels(fixture, 2); return (d[0], d[1]) }()
        let connection = try fixture.connect()
        defer { connection.close() }
        // Both right at the same millisecond: the first in arrival order wins, the second is locked out.
        // In duel b, a wrong answer first: it locks out only its author, the other still wins.
        var lane = DuelLaneState()
        let results = DuelRepository(connection).applyInputs([
            answer(a, seat: 1, correct: true), answer(a, seat: 0, correct: true),
            answer(b, seat: 0, correct: false), answer(b, seat: 1, correct: true),
        ], lane: &lane).map { try? $0.get() ?? nil }
        #expect(results[0]?.outcome == .answered(correct: true, points: 200))
        #expect(results[1]?.outcome == .rejected(ProtocolError(.lockedOut)))
        #expect(results[2]?.outcome == .answered(correct: false, points: 0))
        #expect(results[3]?.outcome == .answered(correct: true, points: 200))
        let stored = try connection.query("""
            SELECT d.id::text AS duel, a.player_id::text AS player, a.correct FROM duel_answers a JOIN duels d ON d.id = a.duel_id
             WHERE d.id IN (\(a.id)::uuid, \(b.id)::uuid) ORDER BY a.answered_at, a.correct
            """).map { "\(try $0.string("duel") == a.id ? "a" : "b"):\(try $0.string("player") == a.players[1].id || (try $0.string("player")) == b.players[1].id ? 1 : 0):\(try $0.bool("correct"))" }
        #expect(Set(stored) == ["a:1:true", "b:0:false", "b:1:true"])
        // The refused answer is not in the input log: replaying the log gives the same duel.
        #expect(try connection.query("SELECT inputs FROM duels WHERE id = \(a.id)::uuid")[0].int("inputs") == 1)
        #expect(try connection.query("SELECT inputs FROM duels WHERE id = \(b.id)::uuid")[0].int("inputs") == 2)
    }

    @Test func duelsFinishingInOneBatchAreAllRatedOnce() async throws {
        let fixture = try StoreFixture(workers: 1)
        let made = try await duels(fixture, 3)
        let connection = try fixture.connect()
        defer { connection.close() }
        // Three forfeits in one transaction: one ratings statement covers the three duels.
        var lane = DuelLaneState()
        let results = DuelRepository(connection).applyInputs(made.map {
            DuelInputItem(duelID: $0.id, input: .forfeit(player: $0.players[0].id, atMs: 2_000))
        }, lane: &lane)
        #expect(try results.allSatisfy { try $0.get()?.finished == true })
        let ids = made.map(\.id)
        let history = try connection.query("""
            SELECT duel_id::text AS duel, player_id::text AS player, outcome FROM rating_history
             WHERE duel_id = ANY(\(PGArray(ids))::uuid[])
            """).map { "\(try $0.string("duel"))/\(try $0.string("player"))/\(try $0.string("outcome"))" }
        #expect(Set(history) == Set(made.flatMap { ["\($0.id)/\($0.players[0].id)/loss", "\($0.id)/\($0.players[1].id)/win"] }))
        #expect(history.count == 6)
        let players = made.flatMap { $0.players.map(\.id) }
        let games = try connection.query("""
            SELECT games, wins FROM ratings r JOIN banks b ON b.id = r.bank_id
             WHERE b.slug = 'general-science' AND player_id = ANY(\(PGArray(players))::uuid[])
            """).map { "\(try $0.int("games"))/\(try $0.int("wins"))" }
        #expect(games.sorted() == ["1/0", "1/0", "1/0", "1/1", "1/1", "1/1"])
    }

    @Test func oneFailingInputFailsAloneWhileTheOthersCommit() async throws {
        let fixture = try StoreFixture(workers: 1)
        let made = try await duels(fixture, 3)
        let connection = try fixture.connect()
        defer { connection.close() }
        // Duel 0's next event row is taken already, so its write breaks the primary key.
        try connection.query("""
            INSERT INTO duel_events (duel_id, seq, kind, at_ms, record)
            SELECT id, last_seq + 1, 'answered', 0, '{}' FROM duels WHERE id = \(made[0].id)::uuid
            """)
        // A lane that stores every event, so that duel 0's answer writes that row.
        var lane = DuelLaneState(storesEveryEvent: true)
        let results = DuelRepository(connection).applyInputs([
            answer(made[0], seat: 0, correct: true),
            answer(made[1], seat: 0, correct: true),
            DuelInputItem(duelID: UUID().uuidString.lowercased(), input: .advance(atMs: 2_000)),
            DuelInputItem(duelID: "'; DROP TABLE duels; --", input: .advance(atMs: 2_000)),
            answer(made[2], seat: 1, correct: false),
        ], lane: &lane)
        #expect(throws: PGError.self) { try results[0].get() }
        #expect(try results[1].get()?.outcome == .answered(correct: true, points: 200))
        #expect(try results[2].get() == nil)
        #expect(try results[3].get() == nil)
        #expect(try results[4].get()?.outcome == .answered(correct: false, points: 0))
        let answered = try connection.query("SELECT duel_id::text AS d FROM duel_answers").map { try $0.string("d") }
        #expect(Set(answered) == [made[1].id, made[2].id])
        #expect(try connection.query("SELECT inputs FROM duels WHERE id = \(made[0].id)::uuid")[0].int("inputs") == 0)
    }

    /// With the seed bank (single choice) and with a bank of every question type.
    @Test(arguments: ["general-science", "mixed"])
    func aStateRebuiltFromStoredRowsEqualsTheStateInMemory(bank: String) async throws {
        let fixture = try StoreFixture(workers: 1)
        let made = try await duels(fixture, 12, bank: bank)
        let writer = try fixture.connect()
        let reader = try fixture.connect()
        defer { writer.close(); reader.close() }
        var random = SystemRandomNumberGenerator()
        var now: Int64 = 1_000
        var lane = DuelLaneState()
        // Random batches of random inputs (answers right, wrong, to other questions, by strangers;
        // deadlines; presence; forfeits), applied the way a lane applies them.
        for _ in 0..<40 {
            var batch: [DuelInputItem] = []
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                now += [0, 1, 250, 3_000, 10_001][Int.random(in: 0..<5, using: &random)]
                let duel = made.randomElement(using: &random)!
                let player = duel.players.randomElement(using: &random)!.id
                let input: DuelInput = switch Int.random(in: 0..<20, using: &random) {
                case 0..<12: .answer(player: player, questionIndex: Int.random(in: 0..<5, using: &random),
                                     submission: [.choice(Int.random(in: 0..<4, using: &random)), .choices([0, 2]),
                                                  .choices([1]), .text("lima"), .text("Quito é"), .number(206.25),
                                                  .number(-1)].randomElement(using: &random)!, atMs: now)
                case 12..<15: .advance(atMs: now)
                case 15: .forfeit(player: player, atMs: now)
                case 16, 17: .disconnected(player: player, atMs: now)
                case 18: .reconnected(player: player, atMs: now)
                default: .answer(player: "00000000-0000-4000-8000-000000000000", questionIndex: 0, choice: 0, atMs: now)
                }
                batch.append(DuelInputItem(duelID: duel.id, input: input))
            }
            for result in DuelRepository(writer).applyInputs(batch, lane: &lane) { _ = try result.get() }
        }
        let ids = made.map(\.id)
        let rebuilt = try DuelRepository(reader).rebuildDuels(ids)
        for id in ids {
            let version = try writer.query("SELECT inputs FROM duels WHERE id = \(id)::uuid")[0].int("inputs")
            let inMemory = try #require(lane.cachedState(of: id, version: version))
            #expect(rebuilt[id]?.version == version)
            #expect(rebuilt[id]?.duel == inMemory)
        }
    }

    @Test func theAfterBatchHookStaysOneCallDeep() {
        // A closure kept directly as a Mutex value gained two thunks per call, so a
        // long-running server spent ever more time calling it (and could overflow the stack).
        let hook = AfterBatch()
        let calls = Counter()
        hook.set { _ in calls.add() }
        let started = ContinuousClock.now
        let outbox = Outbox()
        for _ in 0..<200_000 { hook.run(outbox) }
        #expect(calls.value == 200_000)
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
