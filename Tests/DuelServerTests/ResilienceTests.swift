import DuelClient
import DuelCore
import Foundation
import Testing

extension ServerTests {
    /// Crashes, restarts and several instances on one database.
    @Suite(.serialized) struct ResilienceTests {
        /// As deployed, storing only each game's end: the resume after the restart derives the
        /// events from the log the killed process committed.
        @Test func aDuelSurvivesSIGKILLAndARestart() async throws {
            let first = try TestServer.spawn(storesEveryEvent: false)
            let (a, b, duel) = try await startDuel(first.url)
            guard await a.client.nextEvent("question") != nil else { throw DuelClientError.timeout("question") }
            let correct = try correctChoice(first, duel: duel, index: 0)
            let answered = try await a.client.request("answer", [
                "duel_id": .string(duel), "question_index": 0, "choice": .number(correct),
            ])
            #expect(answered["data"]?["correct"] == true)
            first.kill()
            #expect(await a.client.waitClosed() != nil)
            // The acknowledged answer is in Postgres; a new process on the same database picks the duel up.
            let second = try TestServer.spawn(conninfo: first.conninfo, port: first.port, storesEveryEvent: false)
            defer { second.stop() }
            let (a2, authA) = try await a.reconnect(second.url)
            let (b2, _) = try await b.reconnect(second.url)
            #expect(authA["data"]?["duel"]?["id"] == .string(duel))
            let lastSeen = duelEvents(a.client.transcript, duel: duel).count
            _ = try await a2.client.request("resume", ["duel_id": .string(duel), "after_seq": .number(lastSeen)])
            guard let complete = await a2.client.nextEvent("complete", timeout: .seconds(30)),
                  await b2.client.nextEvent("complete", timeout: .seconds(30)) != nil
            else { throw DuelClientError.timeout("complete after restart") }
            let points = complete["record"]?["players"].flatMap { players -> Int64? in
                if case .array(let list) = players { return list.first { $0["id"] == .string(a.id) }?["score"]?.integer }
                return nil
            }
            #expect((points ?? 0) >= 110)
            let db = try second.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM rating_history WHERE duel_id = \(duel)::uuid")[0].int("n") == 2)
            #expect(try db.query("SELECT sum(games) AS n FROM ratings")[0].int("n") == 2)
            let before = duelEvents(a.client.transcript, duel: duel).compactMap { $0["seq"]?.integer }
            let after = a2.client.transcript.compactMap { try? JSONParser.parse($0) }.filter { $0["duel_id"] == .string(duel) }
                .compactMap { $0["seq"]?.integer }
            // Nothing missing overall. A live event may reach the new connection between its
            // auth and its resume; the resume then repeats it (docs/PROTOCOL.md, resume), so
            // the promise is about what follows the resume: every seq after the one asked
            // for, once each, in order, up to the end.
            let last = try #require((before + after).max())
            #expect(Set(before + after) == Set(1...last))
            let replayStart = try #require(after.lastIndex(of: Int64(lastSeen + 1)))
            #expect(Array(after[replayStart...]) == Array(Int64(lastSeen + 1)...last))
        }

        /// A server killed while a lane's batch is in flight: every answer whose reply
        /// reached its player is stored, and nothing was acknowledged that is not.
        @Test func aSIGKILLWithABatchInFlightLosesNoAcknowledgedAnswer() async throws {
            try await killWithABatchInFlight(try TestServer.spawn(answerMs: 15_000))
        }

        /// As deployed, storing only each game's end: each instance derives the other's events.
        @Test func twoServerProcessesOnOneDatabasePlayOneDuel() async throws {
            let one = try TestServer.spawn(storesEveryEvent: false)
            defer { one.stop() }
            let two = try TestServer.spawn(conninfo: one.conninfo, storesEveryEvent: false)
            defer { two.stop() }
            let a = try await TestPlayer.signUp(one.url)
            let b = try await TestPlayer.signUp(two.url)
            _ = try await a.client.request("queue", ["bank": "chemical-elements"])
            _ = try await b.client.request("queue", ["bank": "chemical-elements"])
            guard let initA = await a.client.nextEvent("init"), let duel = initA["duel_id"]?.string,
                  await b.client.nextEvent("init") != nil
            else { throw DuelClientError.timeout("init across instances") }
            for index in 0..<3 {
                guard await a.client.nextEvent("question") != nil, await b.client.nextEvent("question") != nil else {
                    throw DuelClientError.timeout("question \(index)")
                }
                let correct = try correctChoice(one, duel: duel, index: index)
                // Alternate who answers, so both instances write.
                let player = index % 2 == 0 ? a : b
                let reply = try await player.client.request("answer", [
                    "duel_id": .string(duel), "question_index": .number(index), "choice": .number(correct),
                ])
                #expect(reply["data"]?["correct"] == true)
                let other = index % 2 == 0 ? b : a
                #expect(await other.client.nextEvent("answered") != nil)
            }
            guard await a.client.nextEvent("complete") != nil, await b.client.nextEvent("complete") != nil else {
                throw DuelClientError.timeout("complete")
            }
            for player in [a, b] {
                let kinds = duelEvents(player.client.transcript, duel: duel).map { $0["event"]?.string ?? "" }
                #expect(kinds.first == "init" && kinds.last == "complete" && kinds.count == 11, "\(kinds)")
                checkNothingLeaks(player.client.transcript)
            }
        }
    }
}

/// Eight duels' players all answer question 0 at once (half of them right) and `server` (a
/// spawned process) is SIGKILLed as soon as the first reply is back, while the rest are in a
/// batch or queued: every answer whose reply reached its player must be stored (also the cluster
/// suite's, on Citus). `server` should have long questions (`spawn(answerMs:)`): the first duels'
/// question 0 must still be open after the last duel has started, on a slow machine too.
func killWithABatchInFlight(_ server: TestServer) async throws {
    var duels: [(TestPlayer, TestPlayer, String)] = []
    for _ in 0..<8 { duels.append(try await startDuel(server.url)) }
    for (a, b, _) in duels {
        guard await a.client.nextEvent("question") != nil, await b.client.nextEvent("question") != nil else {
            throw DuelClientError.timeout("question")
        }
    }
    // Every key looked up before the first answer goes, so that the answers go at once.
    let keys = try duels.map { try correctChoice(server, duel: $0.2, index: 0) }
    var sent: [(player: TestPlayer, duel: String, ref: Int)] = []
    for (index, (a, b, duel)) in duels.enumerated() {
        let correct = keys[index]
        for (seat, player) in [a, b].enumerated() {
            let choice = (index + seat) % 2 == 0 ? correct : (correct + 1) % 4
            let ref = 9_000 + 2 * index + seat
            player.client.sendRaw(#"{"op":"answer","ref":\#(ref),"duel_id":"\#(duel)","question_index":0,"choice":\#(choice)}"#)
            sent.append((player, duel, ref))
        }
    }
    /// The reply to `ref` among the frames `player` received, if any.
    func replyTo(_ player: TestPlayer, ref: Int) -> JSONValue? {
        player.client.transcript.lazy.compactMap { try? JSONParser.parse($0) }
            .first { ($0["op"] == "reply" || $0["op"] == "error") && $0["ref"]?.integer == Int64(ref) }
    }
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline, !sent.contains(where: { replyTo($0.player, ref: $0.ref) != nil }) {
        try await Task.sleep(for: .milliseconds(1))
    }
    server.kill()
    let db = try server.database()
    defer { db.close() }
    var acknowledged = 0
    for (player, duel, ref) in sent {
        guard let reply = replyTo(player, ref: ref), reply["ok"] == true else { continue }
        acknowledged += 1
        let stored = try db.query("""
            SELECT count(*) AS n FROM duel_answers
             WHERE duel_id = \(duel)::uuid AND player_id = \(player.id)::uuid AND question_index = 0
            """)[0].int("n")
        #expect(stored == 1, "acknowledged answer of \(player.username) in \(duel) is not stored")
    }
    #expect(acknowledged >= 1)
}
