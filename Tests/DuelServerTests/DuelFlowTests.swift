import DuelClient
import DuelCore
import Foundation
import Testing

extension ServerTests {
    /// Whole duels over real sockets against a real server and Postgres.
    @Suite(.serialized) struct DuelFlowTests {
        let server: TestServer

        init() throws {
            server = try TestServer.start()
        }

        /// Plays question `index` as `moves` say, then waits for its reveal at both players.
        func play(
            _ a: TestPlayer, _ b: TestPlayer, duel: String, index: Int,
            _ moves: [(TestPlayer, Bool)], expect outcomes: [ErrorCode?]
        ) async throws -> JSONValue {
            guard let question = await a.client.nextEvent("question"), await b.client.nextEvent("question") != nil else {
                throw DuelClientError.timeout("question \(index)")
            }
            #expect(question["record"]?["question"]?["index"] == .number(index))
            let correct = try correctChoice(server, duel: duel, index: index)
            let choices = question["record"]?["question"]?["choices"]
            guard case .array(let options)? = choices else { throw DuelClientError.timeout("choices") }
            for ((player, right), expected) in zip(moves, outcomes) {
                let choice = right ? correct : (correct + 1) % options.count
                let reply = try await player.client.request("answer", [
                    "duel_id": .string(duel), "question_index": .number(index), "choice": .number(choice),
                ])
                if let expected {
                    #expect(reply["code"] == .string(expected.rawValue), "\(reply.serialized)")
                } else {
                    #expect(reply["data"]?["correct"] == .bool(right), "\(reply.serialized)")
                }
            }
            guard let reveal = await a.client.nextEvent("reveal"), await b.client.nextEvent("reveal") != nil else {
                throw DuelClientError.timeout("reveal \(index)")
            }
            #expect(reveal["record"]?["reveal"]?["correct_choice"] == .number(correct))
            return reveal
        }

        @Test func theOriginalAppsThreeSituationsInOneDuel() async throws {
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            // (a) A answers correctly first: B is locked out, the reveal is immediate.
            let first = try await play(a, b, duel: duel, index: 0, [(a, true), (b, true)], expect: [nil, .lockedOut])
            let firstPoints = first["record"]?["reveal"]?["points"]?[a.id]?.integer ?? 0
            #expect((110...200).contains(firstPoints))
            #expect(first["record"]?["reveal"]?["choices"]?[b.id] == .null)
            // (b) A answers wrong first: B may still answer, right; revealed when both answered.
            let second = try await play(a, b, duel: duel, index: 1, [(a, false), (b, true)], expect: [nil, nil])
            #expect(second["record"]?["reveal"]?["points"]?[a.id] == 0)
            #expect(second["record"]?["reveal"]?["choices"]?[a.id] != .null)
            // (c) Nobody answers: the deadline reveals it.
            let third = try await play(a, b, duel: duel, index: 2, [], expect: [])
            #expect(third["record"]?["reveal"]?["points"] == .object([(a.id, 0), (b.id, 0)].reduce(into: JSONObject()) { $0[$1.0] = .int(Int64($1.1)) }))
            let deadline = third["record"]?["question"]?["deadline_ms"]?.integer ?? 0
            let revealedAt = third["server_time_ms"]?.integer ?? 0
            #expect(revealedAt >= deadline)

            guard let complete = await a.client.nextEvent("complete"), await b.client.nextEvent("complete") != nil else {
                throw DuelClientError.timeout("complete")
            }
            let result = complete["record"]?["result"]
            let scoreA = complete["record"]?["players"].flatMap { players -> Int64? in
                if case .array(let list) = players { return list.first { $0["id"] == .string(a.id) }?["score"]?.integer }
                return nil
            } ?? -1
            let scoreB = second["record"]?["reveal"]?["points"]?[b.id]?.integer ?? -1
            #expect(scoreA == firstPoints)
            let winner = scoreA > scoreB ? a.id : (scoreB > scoreA ? b.id : nil)
            #expect(result?["winner"] == winner.map { .string($0) } ?? .null)
            #expect(result?["reason"] == "completed")
            #expect(result?["ratings"]?[a.id]?["before"] == 1500)

            for player in [a, b] {
                let events = duelEvents(player.client.transcript, duel: duel)
                #expect(events.map { $0["event"]?.string ?? "" } == [
                    "init", "question", "answered", "reveal", "question", "answered", "answered", "reveal",
                    "question", "reveal", "complete",
                ])
                checkNothingLeaks(player.client.transcript)
            }
            // Ratings were applied once, in the same transaction as the finish.
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM rating_history WHERE duel_id = \(duel)::uuid")[0].int("n") == 2)
            let profile = try await a.client.request("profile")
            #expect(profile["data"]?["player"]?["games"] == 1)
            let history = try await b.client.request("history", ["limit": 5])
            #expect(history["data"]?["duels"].map { if case .array(let l) = $0 { l.count } else { 0 } } == 1)
            let board = try await b.client.request("leaderboard", ["bank": "world-capitals"])
            #expect(board["data"]?["entries"] != nil)
            let mistakes = try await b.client.request("mistakes", ["limit": 10])
            #expect(mistakes["data"]?["questions"].map { if case .array(let l) = $0 { l.count } else { 0 } } == 2)
        }

        @Test func reconnectAndResumeMissNothingAndRepeatNothing() async throws {
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            guard await a.client.nextEvent("question") != nil else { throw DuelClientError.timeout("question") }
            let seenBefore = duelEvents(a.client.transcript, duel: duel).count
            a.client.close()
            _ = await a.client.waitClosed()
            // B answers while A is away.
            _ = try await b.client.request("answer", ["duel_id": .string(duel), "question_index": 0, "choice": 0])
            try await Task.sleep(for: .milliseconds(300))
            let (again, auth) = try await a.reconnect(server.url)
            #expect(auth["data"]?["duel"]?["id"] == .string(duel))
            let resumed = try await again.client.request("resume", ["duel_id": .string(duel), "after_seq": .number(seenBefore)])
            #expect(resumed["ok"] == true)
            guard await again.client.nextEvent("complete", timeout: .seconds(20)) != nil else {
                throw DuelClientError.timeout("complete")
            }
            // Old connection's events + new connection's events = every seq exactly once...
            let old = duelEvents(a.client.transcript, duel: duel).compactMap { $0["seq"]?.integer }
            let new = again.client.transcript.compactMap { try? JSONParser.parse($0) }
                .filter { $0["duel_id"] == .string(duel) }.compactMap { $0["seq"]?.integer }
            let all = old + new
            #expect(all == Array(1...Int64(all.count)), "\(old) + \(new)")
            // ...and a resume from 0 replays them all, in order.
            _ = try await again.client.request("resume", ["duel_id": .string(duel), "after_seq": 0])
            var replayed: [Int64] = []
            while let event = await again.client.next(timeout: .seconds(2)) {
                if let seq = event["seq"]?.integer { replayed.append(seq) }
            }
            #expect(replayed == Array(1...Int64(all.count)))
            checkNothingLeaks(again.client.transcript)
            checkNothingLeaks(b.client.transcript)
        }

        @Test func abandoningPlayerForfeitsAfterTheDelay() async throws {
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            a.client.close()
            guard let complete = await b.client.nextEvent("complete", timeout: .seconds(20)) else {
                throw DuelClientError.timeout("complete")
            }
            #expect(complete["record"]?["result"]?["reason"] == "abandoned")
            #expect(complete["record"]?["result"]?["winner"] == .string(b.id))
            _ = duelEvents(b.client.transcript, duel: duel)
        }

        @Test func forfeitEndsTheDuelAtOnce() async throws {
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            let reply = try await a.client.request("forfeit", ["duel_id": .string(duel)])
            #expect(reply["ok"] == true)
            let complete = await b.client.nextEvent("complete")
            #expect(complete?["record"]?["result"]?["winner"] == .string(b.id))
            #expect(complete?["record"]?["result"]?["reason"] == "forfeit")
            let again = try await a.client.request("forfeit", ["duel_id": .string(duel)])
            #expect(again["code"] == "duel_over")
            // Both may queue again right away.
            #expect(try await a.client.request("queue", ["bank": "world-capitals"])["ok"] == true)
        }
    }
}
