import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// Achievements granted a batch at a time (`grant_achievements`, called once by
/// `record_progress` for all of a batch's games): each once, none a player already holds, each
/// new one notified, the payloads in the order asked.
@Suite struct AchievementGrantTests {
    /// `(player, code, id)` of each payload, after checking it is a notification event whose
    /// record is the stored row.
    func read(_ payloads: [String], on connection: PGConnection) throws -> [(player: String, code: String, id: Int64)] {
        try payloads.map { payload in
            let parts = payload.split(separator: "\n", maxSplits: 1).map(String.init)
            #expect(parts.count == 2)
            let event = try JSONParser.parse(parts[1])
            #expect(event["op"] == "event" && event["event"] == "notification" && event["type"] == "INSERT")
            #expect(event["record"]?["kind"] == "achievement")
            #expect(event["commit_timestamp"] == event["record"]?["created_at"])
            let id = try #require(event["record"]?["id"]?.integer)
            let code = try #require(event["record"]?["data"]?["code"]?.string)
            let stored = try connection.query("""
                SELECT player_id::text AS player, data->>'code' AS code, data->>'title' AS title
                  FROM notifications WHERE id = \(Int64(id))
                """)
            #expect(stored.count == 1)
            #expect(try stored.first?.string("player") == parts[0] && stored.first?.string("code") == code)
            let title = try connection.query("SELECT title FROM achievements WHERE code = \(code)")[0].string("title")
            #expect(event["record"]?["data"]?["title"] == .string(title))
            return (parts[0], code, Int64(id))
        }
    }

    func grant(_ connection: PGConnection, _ pairs: [(PlayerID, String)]) throws -> [String] {
        try connection.query("""
            SELECT grant_achievements(\(PGArray(pairs.map { Optional($0.0) }))::uuid[],
                                      \(PGArray(pairs.map { Optional($0.1) }))::text[]) AS payloads
            """)[0].textArray("payloads")
    }

    func held(_ connection: PGConnection, _ player: PlayerID) throws -> Set<String> {
        Set(try connection.query("SELECT code FROM player_achievements WHERE player_id = \(player)::uuid").map { try $0.string("code") })
    }

    func noted(_ connection: PGConnection, _ player: PlayerID) throws -> [String] {
        try connection.query("""
            SELECT data->>'code' AS code FROM notifications WHERE player_id = \(player)::uuid AND kind = 'achievement' ORDER BY id
            """).map { try $0.string("code") }
    }

    @Test func eachPairIsGrantedOnceInTheOrderAskedAndOnlyIfNew() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "a\(UUID().uuidString.prefix(6))")
        let (a, b) = (players[0], players[1])
        let connection = try fixture.connect()
        defer { connection.close() }
        // `a` already holds first_game (granted one at a time, as operators' SQL does).
        let single = { try connection.query("SELECT grant_achievement(\(a)::uuid, 'first_game', false) AS p")[0].optionalString("p") }
        #expect(try single()?.hasPrefix(a + "\n") == true)
        // The single grant is one of the batch's: a second gives nothing and notes nothing.
        #expect(try single() == nil)
        let payloads = try grant(connection, [(a, "first_game"), (b, "first_win"), (a, "first_win"), (b, "first_win"), (a, "speedster")])
        let read = try read(payloads, on: connection)
        #expect(read.map { "\($0.player == b ? "b" : "a"):\($0.code)" } == ["b:first_win", "a:first_win", "a:speedster"])
        #expect(read.map(\.id) == read.map(\.id).sorted())
        #expect(try held(connection, a) == ["first_game", "first_win", "speedster"])
        #expect(try held(connection, b) == ["first_win"])
        #expect(try noted(connection, a) == ["first_game", "first_win", "speedster"])
        #expect(try noted(connection, b) == ["first_win"])
        // Asking again grants and notes nothing; so does an empty batch.
        #expect(try grant(connection, [(a, "speedster"), (b, "first_win")]).isEmpty)
        #expect(try grant(connection, []).isEmpty)
        #expect(try noted(connection, a).count == 3 && noted(connection, b).count == 1)
        // An unknown code fails the batch (its foreign key), as a single grant would: nothing of it stays.
        #expect(throws: PGError.self) { try grant(connection, [(b, "speedster"), (b, "no_such_code")]) }
        #expect(try held(connection, b) == ["first_win"])
    }

    /// A batch that holds two games of one player (the settler gathers several rounds' games)
    /// grants each of their achievements once, in the order the games and the codes come.
    @Test func twoGamesOfOnePlayerInOneBatchGrantEachAchievementOnce() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "t\(UUID().uuidString.prefix(6))")
        let (p, q) = (players[0], players[1])
        let connection = try fixture.connect()
        defer { connection.close() }
        let bank = try #require(try QuizRepository(connection).bank(slug: "general-science")).id
        let rules = DuelConfiguration(countdownMs: 0, answerWindowMs: 10_000, revealMs: 0, questionCount: 1)
        // Two games of the same pair: their live markers go between them (a player is in one live
        // game at a time; only the games' rows matter here).
        let duels = try (0..<2).map { _ in
            let duel = try connection.transaction {
                try DuelRepository($0).createGames(bankID: bank, games: [players], mode: .ranked, configuration: rules, nowMs: 1_000)[0].duel.id
            }
            try connection.query("DELETE FROM live_duel_players WHERE duel_id = \(duel)::uuid")
            return duel
        }
        // Both games: p answers right within a second and wins, q answers wrong.
        let ids = [duels[0], duels[0], duels[1], duels[1]]
        let payloads = try connection.query("""
            SELECT array_agg(p) AS payloads FROM record_progress(
                \(PGArray(ids.map { Optional($0) }))::uuid[], \(PGArray([p, q, p, q].map { Optional($0) }))::uuid[],
                \(PGArray(Array(repeating: Optional(String(bank)), count: 4)))::int[], ARRAY['ranked', 'ranked', 'ranked', 'ranked'],
                ARRAY[20000, 20000, 40000, 40000]::bigint[], ARRAY[1, 0, 1, 0], ARRAY[1, 1, 1, 1],
                ARRAY[true, false, true, false], ARRAY[true, false, true, false], ARRAY[true, true, true, true],
                ARRAY[2, 2, 2, 2], ARRAY[500, NULL, 500, NULL]::bigint[], ARRAY[1, 1, 1, 1], ARRAY[1, 1, 1, 1]) AS p
            """)[0].textArray("payloads")
        #expect(try noted(connection, p) == ["first_game", "first_win", "speedster"])
        #expect(try noted(connection, q) == ["first_game"])
        // Every stored notification was returned once (the level-up with them), the
        // achievements' in the order their games and codes came.
        let stored = try connection.query("""
            SELECT count(*) AS n FROM notifications WHERE player_id = ANY(\(PGArray(players.map { Optional($0) }))::uuid[])
            """)[0].int("n")
        #expect(payloads.count == stored)
        let achievements = try read(payloads.filter { $0.contains("\"kind\":\"achievement\"") || $0.contains("\"kind\": \"achievement\"") },
                                    on: connection)
        #expect(achievements.map { "\($0.player == p ? "p" : "q"):\($0.code)" }
            == ["p:first_game", "p:first_win", "p:speedster", "q:first_game"])
        #expect(achievements.map(\.id) == achievements.map(\.id).sorted())
    }
}
