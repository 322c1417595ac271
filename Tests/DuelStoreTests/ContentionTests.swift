import TestSupport
import DuelCore
import DuelStore
import Foundation
import Testing

/// Many connections at once on one database, as many server instances would be.
@Suite struct ContentionTests {
    static let banks = ["world-capitals", "chemical-elements", "general-science", "extra"]

    @Test func eightMatchersPairTwoThousandPlayersEachAtMostOnce() async throws {
        let fixture = try StoreFixture(workers: 8)
        let setup = try fixture.connect()
        defer { setup.close() }
        try setup.query("SELECT ops.create_bank('extra', 'Extra')")
        try setup.query("SELECT ops.add_question('extra', 'Q?', ARRAY['a','b'], 'A')")
        let players = try await fixture.players(2_000)
        var bankOf: [PlayerID: String] = [:]
        for (index, player) in players.enumerated() {
            bankOf[player] = Self.banks[index % 4]
            _ = try QueueRepository(setup).enqueue(player: player, bank: Self.banks[index % 4])
        }
        // Spread the ratings so that not everyone is compatible with everyone.
        try setup.query("UPDATE match_queue SET rating = 1000 + (hashtext(player_id::text) & 1023)")
        let ratings = Dictionary(uniqueKeysWithValues: try setup.query("SELECT player_id::text AS p, rating FROM match_queue").map {
            (try $0.string("p"), try $0.double("rating"))
        })
        let bankIDs = try Self.banks.map { try #require(try QuizRepository(setup).bank(slug: $0)).id }
        // A fixed gap, so "compatible" does not change while the test runs.
        let policy = MatchPolicy(initialGap: 150, gapGrowthPerSecond: 0, alwaysPairAfterMs: .max)
        let config = DuelConfiguration(questionCount: 1)

        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await fixture.pool.run { connection in
                        var made = 0
                        var idle = 0
                        while idle < 3 {
                            var round = 0
                            for bank in bankIDs.shuffled() {
                                round += try QueueRepository(connection).claimPairs(
                                    bankID: bank, policy: policy, configuration: config, nowMs: 0, batch: 64).count
                            }
                            made += round
                            idle = round == 0 ? idle + 1 : 0
                        }
                        return made
                    }
                }
            }
            for try await _ in group {}
        }
        // Leftovers that another matcher held a moment ago get one more pass, as the periodic matcher gives them.
        for bank in bankIDs {
            _ = try QueueRepository(setup).claimPairs(bankID: bank, policy: policy, configuration: config, nowMs: 0, batch: 2_000)
        }

        let duels = try setup.query("""
            SELECT d.player_a::text AS a, d.player_b::text AS b, b.slug FROM duels d JOIN banks b ON b.id = d.bank_id
            """)
        var paired = Set<PlayerID>()
        for duel in duels {
            let a = try duel.string("a"), b = try duel.string("b"), slug = try duel.string("slug")
            #expect(paired.insert(a).inserted, "player paired twice")
            #expect(paired.insert(b).inserted, "player paired twice")
            #expect(bankOf[a] == slug && bankOf[b] == slug, "paired across banks")
            #expect(abs(ratings[a]! - ratings[b]!) <= 150)
        }
        let waiting = try setup.query("SELECT player_id::text AS p FROM match_queue").map { try $0.string("p") }
        #expect(paired.count + waiting.count == 2_000)
        #expect(paired.isDisjoint(with: waiting))
        for a in waiting {
            for b in waiting where a < b && bankOf[a] == bankOf[b] {
                #expect(abs(ratings[a]! - ratings[b]!) > 150, "compatible players left waiting")
            }
        }
        #expect(duels.count > 900)
    }

    @Test func racingCorrectAnswersScoreExactlyOnceAndRatingsApplyOnce() async throws {
        let fixture = try StoreFixture(workers: 8)
        let setup = try fixture.connect()
        defer { setup.close() }
        let bank = try #require(try QuizRepository(setup).bank(slug: "general-science"))
        let config = DuelConfiguration(countdownMs: 0, questionCount: 1)
        let trials = 200
        let players = try await fixture.players(2 * trials)
        for trial in 0..<trials {
            _ = try QueueRepository(setup).enqueue(player: players[2 * trial], bank: bank.slug)
            _ = try QueueRepository(setup).enqueue(player: players[2 * trial + 1], bank: bank.slug)
            let duel = try #require(try QueueRepository(setup).claimPairs(
                bankID: bank.id, policy: MatchPolicy(), configuration: config, nowMs: 10_000).first)
            let correct = try setup.query("""
                SELECT q.correct_choice FROM duel_questions dq JOIN questions q ON q.id = dq.question_id
                 WHERE dq.duel_id = \(duel.duelID)::uuid
                """)[0].int("correct_choice")
            let pair = duel.players
            let outcomes = try await withThrowingTaskGroup(of: DuelStep.Outcome.self) { group in
                for player in pair {
                    group.addTask {
                        try await fixture.pool.run { connection in
                            try DuelRepository(connection).updateDuel(id: duel.duelID, .answer(player: player, questionIndex: 0, choice: correct, atMs: 10_500))!.outcome
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .answered(correct: true, points: 200) }.count == 1)
            #expect(outcomes.filter { $0 == .rejected(ProtocolError(.lockedOut)) }.count == 1)
            // The duel is revealed; both racing to finish it (forfeit and the reveal deadline) rate it once.
            let finishers = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await fixture.pool.run { connection in
                        try DuelRepository(connection).updateDuel(id: duel.duelID, .forfeit(player: pair[0], atMs: 12_000))!.finished
                    }
                }
                group.addTask {
                    try await fixture.pool.run { connection in
                        try DuelRepository(connection).updateDuel(id: duel.duelID, .advance(atMs: 13_000))!.finished
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(finishers == [true, true])
        }
        let scored = try setup.query("""
            SELECT count(*) FILTER (WHERE correct) AS winners, count(DISTINCT duel_id) AS duels FROM duel_answers
            """)[0]
        #expect(try scored.int("winners") == trials)
        #expect(try scored.int("duels") == trials)
        let ratings = try setup.query("SELECT sum(games) AS games, max(games) AS most FROM ratings WHERE bank_id = \(bank.id)")[0]
        #expect(try ratings.int("games") == 2 * trials)
        #expect(try ratings.int("most") == 1)
        #expect(try setup.query("SELECT count(*) AS n FROM rating_history")[0].int("n") == 2 * trials)
        // A later completion attempt is refused by the engine and changes nothing.
        let any = try setup.query("SELECT id::text AS id FROM duels LIMIT 1")[0].string("id")
        let again = try #require(try DuelRepository(setup).updateDuel(id: any, .forfeit(player: "x", atMs: 99_000)))
        #expect(again.events.isEmpty)
        #expect(try setup.query("SELECT sum(games) AS games FROM ratings")[0].int("games") == 2 * trials)
    }
}
