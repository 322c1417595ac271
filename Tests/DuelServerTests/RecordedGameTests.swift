import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// Every player gets a first game (issue 27, item 3): a game against a recorded opponent,
    /// the house's on an empty server, a past player's once the bank has been played; unrated,
    /// paid as practice, refused as practice is.
    @Suite(.serialized) struct RecordedGameTests {
        /// Plays `duel` to its end as `player`, answering each question right (`right`) or wrong
        /// `delayMs` after it opens; returns the events seen.
        func play(_ server: TestServer, _ player: TestPlayer, duel: String, right: Bool = true,
                  delayMs: Int = 0) async throws -> [JSONValue] {
            var seen: [JSONValue] = []
            while true {
                guard let event = await player.client.next(timeout: .seconds(15)) else {
                    throw DuelClientError.timeout("event after \(seen.map { $0["event"]?.string ?? "?" })")
                }
                guard event["duel_id"] == .string(duel) else { continue }
                seen.append(event)
                if event["event"] == "complete" { return seen }
                guard event["event"] == "question", let index = event["record"]?["question"]?["index"]?.integer else { continue }
                let correct = try correctChoice(server, duel: duel, index: Int(index))
                if delayMs > 0 { try await Task.sleep(for: .milliseconds(delayMs)) }
                _ = try await player.client.request("answer", [
                    "duel_id": .string(duel), "question_index": .int(index), "choice": .number(right ? correct : (correct + 1) % 2),
                ])
            }
        }

        /// A recorded opponent is no account and no instance holds it: with another instance
        /// running, a recorded game whose one player is held here tells the others nothing. Its
        /// rounds' updates listed the recording among the players, and every input after the first
        /// was announced (a NOTIFY, and a read of the events by every other instance that cared).
        @Test func aRecordedGameHeldHereAnnouncesNothingToOtherInstances() async throws {
            let first = try TestServer.start()
            defer { first.stop() }
            let second = try first.another()
            defer { second.stop() }
            let listener = try first.database()
            defer { listener.close() }
            try listener.execute(script: "LISTEN duel_events")
            // Announcements flow once each instance has seen the other's heartbeat.
            try await Task.sleep(for: .seconds(2))
            #expect(try listener.query("SELECT count(*) AS n FROM instances")[0].int("n") == 2)
            let player = try await TestPlayer.signUp(second.url)
            let reply = try await player.client.request("recorded", ["bank": "world-capitals"])
            let duel = try #require(reply["data"]?["duel_id"]?.string, "\(reply.serialized)")
            _ = try #require(await player.client.nextEvent("init"))
            let events = try await play(second, player, duel: duel, right: false)
            #expect(events.last?["event"] == "complete")
            try await Task.sleep(for: .milliseconds(300))
            let about = try listener.notifications().filter { $0.payload.contains(duel) }
            #expect(about.isEmpty, "\(about.count) announcements of the recorded game: \(about.map(\.payload))")
        }

        @Test func aNewcomerOnAnEmptyServerPlaysTheHouseUnratedAndIsPaidAsForPractice() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            let reply = try await player.client.request("recorded", ["bank": "world-capitals"])
            #expect(reply["data"]?["opponent"] == "house", "\(reply.serialized)")
            let duel = try #require(reply["data"]?["duel_id"]?.string)
            let start = try #require(await player.client.nextEvent("init"))
            #expect(start["record"]?["mode"] == "recorded")
            #expect(start["record"]?["players"]?[1]?["id"] == .string(DuelPlayer.recordedID))
            #expect(start["record"]?["players"]?[1]?["username"] == "The house")
            #expect(!start.serialized.contains("recording") && !start.serialized.contains("afterMs"), "the recording is a secret")
            // Wrong at once (which locks out only the player): the house's answers still come in
            // at their times, as an opponent's would.
            let events = try await play(server, player, duel: duel, right: false)
            let byHouse = events.filter { event in
                guard event["event"] == "answered", case .array(let answers)? = event["record"]?["answers"] else { return false }
                return answers.contains { $0["player"] == .string(DuelPlayer.recordedID) }
            }
            #expect(byHouse.count == 3)
            let complete = try #require(events.last)
            #expect(complete["record"]?["rated"] == false)
            let db = try server.database()
            defer { db.close() }
            let row = try db.query("SELECT mode, player_b IS NULL AS alone FROM duels WHERE id = \(duel)::uuid")[0]
            #expect(try row.string("mode") == "recorded" && row.bool("alone"))
            #expect(try db.query("""
                SELECT count(*) AS n FROM duel_answers WHERE duel_id = \(duel)::uuid AND player_id <> \(player.id)::uuid
                """)[0].int("n") == 0)
            #expect(try db.query("SELECT count(*) AS n FROM rating_history WHERE duel_id = \(duel)::uuid")[0].int("n") == 0)
            // Practice's pay: 20 for the game played to its end, nothing for a first place.
            let paid = try db.query("""
                SELECT xp, first_place, won FROM game_progress WHERE duel_id = \(duel)::uuid AND player_id = \(player.id)::uuid
                """)[0]
            #expect(try paid.int("xp") == 20 && !paid.bool("first_place") && !paid.bool("won"))
            // Its deadlines (the countdown, the house's answers, the last reveal's end, and the
            // questions opened ahead by their reveals, released at their time) were timed by the
            // server: /metrics counts how late each went out.
            let served = httpGet(port: server.port, "/metrics").body.split(separator: "\n")
                .first { $0.hasPrefix("quizduel_deadline_lateness_seconds_count ") }
            #expect((served?.split(separator: " ").last).flatMap { Int($0) } ?? 0 >= 6, "\(served ?? "none")")
            // The game shows in the player's history and statistics like any other.
            for op in ["history", "stats", "mistakes", "profile"] {
                let listed = try await player.client.request(op)
                #expect(listed["ok"] == true, "\(op): \(listed.serialized)")
            }
        }

        @Test func afterAGameOfTheBankTheOpponentReplaysAPastPlayerOnTheSameQuestions() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let (a, b, past) = try await startDuel(server.url, bank: "general-science")
            // b answers every question wrong, late: its answers are what a recording replays.
            async let aPlays = play(server, a, duel: past, right: false, delayMs: 200)
            let bEvents = try await play(server, b, duel: past, right: false, delayMs: 500)
            _ = try await aPlays
            #expect(bEvents.last?["event"] == "complete")
            let newcomer = try await TestPlayer.signUp(server.url)
            let reply = try await newcomer.client.request("recorded", ["bank": "general-science"])
            #expect(reply["data"]?["opponent"] == "past_player", "\(reply.serialized)")
            let duel = try #require(reply["data"]?["duel_id"]?.string)
            let start = try #require(await newcomer.client.nextEvent("init"))
            #expect(start["record"]?["players"]?[1]?["username"] == "A past player")
            let db = try server.database()
            defer { db.close() }
            let questions = { (id: String) throws -> [Int64] in
                try db.query("SELECT question_id FROM duel_questions WHERE duel_id = \(id)::uuid ORDER BY question_index")
                    .map { try $0.int64("question_id") }
            }
            #expect(try questions(duel) == questions(past))
            // The operators' view of answers reads each ranked answer's rating before the game from
            // the engine's start state (ops.question_answers): both players started at 1500.
            let before = try db.query("SELECT DISTINCT rating_before FROM ops.question_answers WHERE duel_id = \(past)::uuid")
            #expect(try before.map { try $0.double("rating_before") } == [1500])
            // The newcomer waits: the recording's wrong answers arrive about when they came then.
            let events = try await play(server, newcomer, duel: duel, right: true, delayMs: 1_000)
            let theirs = events.filter { event in
                guard event["event"] == "answered", case .array(let answers)? = event["record"]?["answers"] else { return false }
                return answers.contains { $0["player"] == .string(DuelPlayer.recordedID) }
            }
            #expect(theirs.count >= 1, "\(events.map(\.serialized))")
        }

        @Test func aRecordedGameIsRefusedAsPracticeIs() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            #expect(try await player.client.request("recorded", ["bank": "no-such-bank"])["code"] == "unknown_bank")
            #expect(try await player.client.request("recorded", [:])["code"] == "bad_request")
            // PROTOCOL.md: a player waiting in a queue is refused (a client cancels first).
            _ = try await player.client.request("queue", ["bank": "world-capitals"])
            #expect(try await player.client.request("recorded", ["bank": "world-capitals"])["code"] == "already_queued")
            _ = try await player.client.request("cancel")
            _ = try await player.client.request("recorded", ["bank": "world-capitals"])
            #expect(try await player.client.request("recorded", ["bank": "world-capitals"])["code"] == "in_duel")
        }
    }
}
