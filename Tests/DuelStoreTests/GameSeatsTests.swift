import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Games of three and four players (room games) in the store: every seat stored, played
/// through the lane path, rebuilt, unrated, and in each player's history and notebook.
@Suite struct GameSeatsTests {
    static let rules = DuelConfiguration(countdownMs: 0, answerWindowMs: 10_000, revealMs: 0, questionCount: 2)

    @Test func aFourPlayerRoomGameIsStoredPlayedAndRebuilt() async throws {
        let fixture = try StoreFixture(workers: 1)
        let ids = try await fixture.players(4, prefix: "s\(UUID().uuidString.prefix(6))")
        let db = try fixture.connect()
        defer { db.close() }
        let bank = try #require(try db.bank(slug: "general-science")).id
        let created = try db.transaction {
            try $0.createGames(bankID: bank, games: [ids], mode: .room, configuration: Self.rules, nowMs: 1_000)
        }
        let duel = created[0].duel
        #expect(created[0].update.players == ids)
        #expect(try db.duelPlayers(id: duel.id) == ids)
        #expect(try db.query("SELECT count(*) AS n FROM live_duel_players WHERE duel_id = \(duel.id)::uuid")[0].int("n") == 4)
        #expect(try db.events(after: [(duel.id, 0)])[duel.id]?.players == ids)

        // Question 0: seat 3 wrong, seat 2 right (locks out seats 0 and 1); question 1: nobody, then the deadline.
        let right = duel.questions[0].correctChoice
        let wrong = (right + 1) % duel.questions[0].choices.count
        let results = db.applyInputs([
            DuelInputItem(duelID: duel.id, input: .answer(player: ids[3], questionIndex: 0, choice: wrong, atMs: 1_100)),
            DuelInputItem(duelID: duel.id, input: .answer(player: ids[2], questionIndex: 0, choice: right, atMs: 1_200)),
            DuelInputItem(duelID: duel.id, input: .answer(player: ids[0], questionIndex: 0, choice: right, atMs: 1_300)),
        ]).map { try? $0.get() ?? nil }
        #expect(results[0]?.outcome == .answered(correct: false, points: 0))
        #expect(results[1]?.outcome == .answered(correct: true, points: 200))
        #expect(results[2]?.outcome == .rejected(DuelRejection(.lockedOut)))
        let last = try #require(try db.applyInputs([DuelInputItem(duelID: duel.id, input: .advance(atMs: 20_000))])[0].get())
        #expect(last.finished)
        #expect(last.players == ids)

        // Rebuilt from the stored base state and input log: the state the lane holds.
        let version = try db.query("SELECT inputs FROM duels WHERE id = \(duel.id)::uuid")[0].int("inputs")
        #expect(try db.rebuildDuels([duel.id])[duel.id]?.duel == db.duelCache.state(of: duel.id, version: version))
        // Unrated, out of the live list, in every player's history, and every seat's misses noted.
        #expect(try db.query("SELECT count(*) AS n FROM rating_history WHERE duel_id = \(duel.id)::uuid")[0].int("n") == 0)
        #expect(try db.query("SELECT count(*) AS n FROM live_duel_players WHERE duel_id = \(duel.id)::uuid")[0].int("n") == 0)
        for player in ids {
            #expect(try db.history(player: player, limit: 5).count == 1)
        }
        let missed = try db.query("""
            SELECT player_id::text AS p, count(*) AS n FROM missed_questions WHERE duel_id = \(duel.id)::uuid GROUP BY 1
            """).reduce(into: [String: Int]()) { $0[try $1.string("p")] = try $1.int("n") }
        #expect(missed == [ids[0]: 2, ids[1]: 2, ids[2]: 1, ids[3]: 2])
    }

    @Test func gamesOfFivePlayersOrTheSamePlayerTwiceAreRefused() async throws {
        let fixture = try StoreFixture(workers: 1)
        let ids = try await fixture.players(5, prefix: "t\(UUID().uuidString.prefix(6))")
        let db = try fixture.connect()
        defer { db.close() }
        let bank = try #require(try db.bank(slug: "general-science")).id
        for game in [ids, [ids[0], ids[1], ids[0]]] {
            #expect(throws: StoreError.self) {
                try db.transaction {
                    try $0.createGames(bankID: bank, games: [game], mode: .room, configuration: Self.rules, nowMs: 1_000)
                }
            }
        }
        #expect(try db.query("SELECT count(*) AS n FROM duel_players")[0].int("n") == 0)
    }
}
