import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

@Suite struct QueueAndDuelTests {
    @Test func playersAndSessions() async throws {
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        let id = try PlayerRepository(connection).createPlayer(username: "Ada", passwordHash: "$argon2id$v=19$x")
        #expect(throws: StoreError(.usernameTaken)) {
            try PlayerRepository(connection).createPlayer(username: "ada", passwordHash: "$argon2id$v=19$y")
        }
        #expect(throws: PGError.self) { try PlayerRepository(connection).createPlayer(username: "bob", passwordHash: "plain text") }
        #expect(try PlayerRepository(connection).credentials(username: "ADA")?.id == id)
        let token = [UInt8](repeating: 7, count: 32)
        try PlayerRepository(connection).createSession(player: id, tokenHash: token, lifetimeSeconds: 60)
        #expect(try PlayerRepository(connection).sessionPlayer(tokenHash: token) == id)
        try PlayerRepository(connection).deleteSession(tokenHash: token)
        #expect(try PlayerRepository(connection).sessionPlayer(tokenHash: token) == nil)
        let profile = try #require(try PlayerRepository(connection).profile(player: id))
        #expect(profile.username == "Ada")
        #expect(profile.ratings["world-capitals"] == 1500)
        #expect(try PlayerRepository(connection).profile(player: "not-a-uuid") == nil)
    }

    @Test func liveGamesCountPracticeGamesOnce() async throws {
        // A practice game has one live marker, a duel two: counting markers / 2 gave 2 for one
        // duel and three practice games (the quizduel_live_duels gauge).
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        let ids = try await fixture.players(5, prefix: "live")
        let bank = try #require(try QuizRepository(connection).bank(slug: "world-capitals")).id
        _ = try connection.transaction { try DuelRepository($0).createGames(bankID: bank, games: [[ids[0], ids[1]]], mode: .ranked, configuration: .standard, nowMs: 1_000) }
        for player in ids[2...] {
            _ = try DuelRepository(connection).startPractice(
                player: player, bank: "world-capitals", mistakes: false, configuration: .standard, nowMs: 1_000, announce: false)
        }
        #expect(try DuelRepository(connection).liveDuelCount() == 4)
    }

    @Test func queueRefusalsChangeNothing() async throws {
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        let ids = try await fixture.players(2)
        try connection.query("SELECT ops.create_bank('empty', 'Empty')")
        #expect(throws: StoreError(.unknownBank)) { try QueueRepository(connection).enqueue(player: ids[0], bank: "nope") }
        #expect(throws: StoreError(.bankEmpty)) { try QueueRepository(connection).enqueue(player: ids[0], bank: "empty") }
        _ = try QueueRepository(connection).enqueue(player: ids[0], bank: "world-capitals")
        #expect(throws: StoreError(.alreadyQueued)) { try QueueRepository(connection).enqueue(player: ids[0], bank: "chemical-elements") }
        #expect(try QueueRepository(connection).cancelQueue(player: ids[0]))
        #expect(try !QueueRepository(connection).cancelQueue(player: ids[0]))
        #expect(try connection.query("SELECT count(*) AS n FROM match_queue")[0].int("n") == 0)
    }

    @Test func aBatchOfQueueRequestsAnswersEachAsAloneInOneTransaction() async throws {
        // Issue 25: the server writes the `queue` requests of a few milliseconds together. Each
        // gets what it would have got alone and in order; one refused changes nothing for the rest.
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        let ids = try await fixture.players(5, prefix: "batch")
        let bank = try #require(try QuizRepository(connection).bank(slug: "world-capitals")).id
        _ = try connection.transaction { try DuelRepository($0).createGames(bankID: bank, games: [[ids[3], ids[4]]], mode: .ranked, configuration: .standard, nowMs: 1_000) }
        try connection.query("SELECT ops.create_bank('empty', 'Empty')")
        let results = QueueRepository(connection).enqueue([
            (ids[0], "world-capitals"), (ids[1], "nope"), (ids[0], "general-science"), (ids[2], "empty"),
            (ids[3], "world-capitals"), (ids[2], "general-science"),
        ])
        func refusal(_ result: Result<Int64, Error>) -> ErrorCode? {
            if case .failure(let error) = result { return (error as? StoreError)?.error.code }
            return nil
        }
        #expect(results.count == 6)
        #expect(try results[0].get() > 0)
        #expect(refusal(results[1]) == .unknownBank)
        #expect(refusal(results[2]) == .alreadyQueued)
        #expect(refusal(results[3]) == .bankEmpty)
        #expect(refusal(results[4]) == .inDuel)
        #expect(try results[5].get() >= results[0].get())
        let queued = try connection.query("SELECT player_id::text AS p, b.slug FROM match_queue q JOIN banks b ON b.id = q.bank_id ORDER BY slug")
        #expect(try queued.map { [try $0.string("p"), try $0.string("slug")] } == [[ids[2], "general-science"], [ids[0], "world-capitals"]])
        // The whole batch was one transaction: both rows it queued carry its transaction id. (A
        // count of the ids used between two reads failed when autovacuum's ANALYZE of the fresh
        // tables took one meanwhile.)
        #expect(try connection.query("SELECT count(DISTINCT xmin::text) AS n FROM match_queue")[0].int("n") == 1)
        // One request alone takes the same statement.
        #expect(refusal(QueueRepository(connection).enqueue([(ids[1], "world-capitals")])[0]) == nil)
    }

    @Test func aWholeDuelThroughTheStore() async throws {
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        let ids = try await fixture.players(2)
        for id in ids { _ = try QueueRepository(connection).enqueue(player: id, bank: "general-science") }
        let config = DuelConfiguration(countdownMs: 0, revealMs: 0, questionCount: 3)
        let created = try QueueRepository(connection).claimPairs(
            bankID: try #require(try QuizRepository(connection).bank(slug: "general-science")).id,
            policy: MatchPolicy(), configuration: config, nowMs: 1_000)
        let duel = try #require(created.first)
        #expect(duel.events.map(\.kind) == [.`init`, .question])
        #expect(try DuelRepository(connection).liveDuel(player: ids[0]).last?.seq == 2)
        #expect(throws: StoreError(.inDuel)) { try QueueRepository(connection).enqueue(player: ids[0], bank: "general-science") }

        var now: Int64 = 1_000
        for index in 0..<3 {
            now += 500
            let state = try #require(try DuelRepository(connection).updateDuel(id: duel.duelID, .advance(atMs: now)))
            _ = state
            // Player 0 answers right every time, by reading the stored question's correct choice.
            let correct = try connection.query("""
                SELECT q.correct_choice FROM duel_questions dq JOIN questions q ON q.id = dq.question_id
                 WHERE dq.duel_id = \(duel.duelID)::uuid AND dq.question_index = \(index)
                """)[0].int("correct_choice")
            let update = try #require(try DuelRepository(connection).updateDuel(id: duel.duelID, .answer(player: ids[0], questionIndex: index, choice: correct, atMs: now)))
            #expect(update.outcome == .answered(correct: true, points: 200))
        }
        let events = try DuelRepository(connection).events(duel: duel.duelID, afterSeq: 0)
        #expect(events.map(\.seq) == Array(1...events.count))
        #expect(events.last?.kind == .complete)
        #expect(try DuelRepository(connection).liveDuel(player: ids[0]).isEmpty)
        let profile = try #require(try PlayerRepository(connection).profile(player: ids[0]))
        #expect(profile.wins == 1 && profile.games == 1 && profile.totalScore == 600)
        #expect(profile.ratings["general-science"]! > 1500)
        #expect(try DuelRepository(connection).events(duel: duel.duelID, afterSeq: events.count - 2).count == 2)
        let board = try ProgressRepository(connection).leaderboard(bank: "general-science", limit: 10)
        #expect(board.first?["player"] == .string(ids[0]))
        #expect(try ProgressRepository(connection).history(player: ids[1], limit: 5).first?["result"]?["winner"] == .string(ids[0]))
        // Player 1 missed all three questions; player 0 none.
        #expect(try ProgressRepository(connection).mistakes(player: ids[1], limit: 10).count == 3)
        #expect(try ProgressRepository(connection).mistakes(player: ids[0], limit: 10).isEmpty)
        let stats = try connection.query("SELECT sum(times_asked) AS asked, sum(answers) AS answers FROM ops.question_stats")[0]
        #expect(try stats.int("asked") == 3 && stats.int("answers") == 3)
        try ReportRepository(connection).report(player: ids[1], question: events[1].questionID, reason: "typo")
        #expect(throws: StoreError(.unknownQuestion)) { try ReportRepository(connection).report(player: ids[1], question: 999_999_999, reason: "x") }
        #expect(try DuelRepository(connection).updateDuel(id: UUID().uuidString.lowercased(), .advance(atMs: 0)) == nil)
    }

    @Test func drawsTenDistinctActiveQuestions() async throws {
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        let bank = try #require(try QuizRepository(connection).bank(slug: "world-capitals"))
        // Deactivate half the bank: they must never be drawn.
        try connection.query("UPDATE questions SET active = false WHERE bank_id = \(bank.id) AND id % 2 = 0")
        for _ in 0..<50 {
            let drawn = try QuizRepository(connection).drawQuestions(bankID: bank.id, count: 10)
            #expect(drawn.count == 10)
            #expect(Set(drawn.map(\.id)).count == 10)
            #expect(drawn.allSatisfy { $0.id % 2 == 1 })
        }
        try connection.query("SELECT ops.create_bank('tiny', 'Tiny')")
        try connection.query("SELECT ops.add_question('tiny', 'Q?', ARRAY['a','b'], 'A')")
        let tiny = try #require(try QuizRepository(connection).bank(slug: "tiny"))
        #expect(try QuizRepository(connection).drawQuestions(bankID: tiny.id, count: 10).count == 1)
    }
}

extension StoredEvent {
    /// The question id in this event's record.
    var questionID: Int64 {
        (try? JSONParser.parse(recordJSON))?["question"]?["question_id"]?.integer ?? -1
    }
}
