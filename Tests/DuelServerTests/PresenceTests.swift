import DuelClient
import DuelCore
import DuelServer
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// Presence belongs to the player across instances, and a dead instance's players and
    /// waiters do not linger (issue 10 items 1 and 2).
    @Suite(.serialized) struct PresenceTests {

        @Test func aConnectionOnAnotherInstanceKeepsThePlayerPresent() async throws {
            let slow: (inout ServerConfiguration) -> Void = { $0.duel.answerWindowMs = 4_000; $0.duel.questionCount = 5 }
            let first = try TestServer.start(slow)
            defer { first.stop() }
            let second = try first.another { slow(&$0) }
            defer { second.stop() }
            let (a, b, duel) = try await startDuel(first.url)
            // b signs in on the second instance while the first socket is still open, then closes that one.
            let (bElsewhere, auth) = try await b.reconnect(second.url)
            #expect(auth["ok"] == true)
            b.client.close()
            // Past the abandonment window (4 s), b answers on the second instance.
            try await Task.sleep(for: .seconds(5))
            let reply = try await bElsewhere.client.request("answer", ["duel_id": .string(duel), "question_index": 1, "choice": 0])
            #expect(reply["code"] != "duel_over", "\(reply.serialized)")
            let db = try first.database()
            defer { db.close() }
            let reason = try db.query("SELECT finish_reason FROM duels WHERE id = \(duel)::uuid")[0].optionalString("finish_reason")
            #expect(reason != "abandoned")
            // The latest record shows b connected.
            let record = try db.query("""
                SELECT record::text AS r FROM duel_events WHERE duel_id = \(duel)::uuid ORDER BY seq DESC LIMIT 1
                """)[0].string("r")
            let players = try JSONParser.parse(Array(record.utf8))["players"]
            let bEntry = players.flatMap { if case .array(let list) = $0 { list.first { $0["id"]?.string == b.id } } else { nil } }
            #expect(bEntry?["connected"] == true, "\(record)")
            _ = a
        }

        /// Both players on one instance: that instance announces nothing (no NOTIFY) until one
        /// of them also connects elsewhere; then the other connection gets the live events too.
        @Test func aSecondConnectionOnAnotherInstanceGetsLiveEvents() async throws {
            let first = try TestServer.start { $0.duel.answerWindowMs = 4_000 }
            defer { first.stop() }
            let second = try first.another { $0.duel.answerWindowMs = 4_000 }
            defer { second.stop() }
            try await Task.sleep(for: .seconds(2))
            let (a, b, duel) = try await startDuel(first.url)
            _ = await a.client.nextEvent("question")
            let (elsewhere, auth) = try await b.reconnect(second.url)
            #expect(auth["ok"] == true)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await a.client.request("answer", ["duel_id": .string(duel), "question_index": 0, "choice": 0])
            let answered = await elsewhere.client.nextEvent("answered", timeout: .seconds(3))
            #expect(answered?["duel_id"]?.string == duel)
        }

        @Test func aDeadInstancesWaitersAndPlayersExpire() async throws {
            let survivor = try TestServer.start { $0.duel.answerWindowMs = 8_000; $0.duel.questionCount = 5 }
            defer { survivor.stop() }
            let doomed = try TestServer.spawn(conninfo: survivor.conninfo, answerMs: 8_000)
            defer { doomed.stop() }
            try await Task.sleep(for: .seconds(2))
            // A duel between a player on each instance, and a lone waiter on the doomed one.
            let onDoomed = try await TestPlayer.signUp(doomed.url)
            let onSurvivor = try await TestPlayer.signUp(survivor.url)
            _ = try await onDoomed.client.request("queue", ["bank": "world-capitals"])
            _ = try await onSurvivor.client.request("queue", ["bank": "world-capitals"])
            let started = await onSurvivor.client.nextEvent("init")
            let duel = try #require(started?["duel_id"]?.string)
            let waiter = try await TestPlayer.signUp(doomed.url)
            #expect(try await waiter.client.request("queue", ["bank": "general-science"])["ok"] == true)

            doomed.kill()
            let killedAt = Date()
            let db = try survivor.database()
            defer { db.close() }
            var queued = 1
            while queued > 0 && Date().timeIntervalSince(killedAt) < 15 {
                try await Task.sleep(for: .milliseconds(500))
                queued = try db.query("SELECT count(*) AS n FROM match_queue WHERE player_id = \(waiter.id)::uuid")[0].int("n")
            }
            #expect(queued == 0, "the dead instance's waiter is still queued after 15 s")
            // A newcomer is not paired with the ghost.
            let newcomer = try await TestPlayer.signUp(survivor.url)
            _ = try await newcomer.client.request("queue", ["bank": "general-science"])
            #expect(await newcomer.client.nextEvent("init", timeout: .seconds(2)) == nil)
            // The duel's next events show the doomed player disconnected (a reveal comes within 8 s).
            var disconnected = false
            let until = Date().addingTimeInterval(12)
            while !disconnected && Date() < until {
                guard let event = await onSurvivor.client.next(timeout: .seconds(12)),
                      event["duel_id"]?.string == duel, case .array(let players)? = event["record"]?["players"] else { continue }
                disconnected = players.contains { $0["id"]?.string == onDoomed.id && $0["connected"] == false }
            }
            #expect(disconnected, "the dead instance's player still shows connected")
        }
    }
}

extension ServerTests {
    /// Review mends: queue entries and instances.
    @Suite(.serialized) struct QueueOwnershipTests {
        @Test func aWaiterWhoLeftThisInstanceStillHearsOfTheirDuelElsewhere() async throws {
            let first = try TestServer.start()
            defer { first.stop() }
            let second = try first.another()
            defer { second.stop() }
            let p = try await TestPlayer.signUp(first.url)
            let (elsewhere, auth) = try await p.reconnect(second.url)
            #expect(auth["ok"] == true)
            #expect(try await p.client.request("queue", ["bank": "world-capitals"])["ok"] == true)
            // p's only socket on the first instance closes; they stay connected on the second.
            p.client.close()
            _ = await p.client.waitClosed()
            try await Task.sleep(for: .milliseconds(300))
            // A partner on the first instance: the first instance's matcher pairs them. The
            // duel must be announced, or the second instance never delivers p's `init`.
            let r = try await TestPlayer.signUp(first.url)
            #expect(try await r.client.request("queue", ["bank": "world-capitals"])["ok"] == true)
            #expect(await r.client.nextEvent("init", timeout: .seconds(5)) != nil)
            #expect(await elsewhere.client.nextEvent("init", timeout: .seconds(5)) != nil)
        }

        @Test func aWaiterAlreadyInAGameDoesNotStopTheBanksMatchmaking() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            // x plays practice and (as if queue and practice raced) also waits in the queue.
            let x = try await TestPlayer.signUp(server.url)
            #expect(try await x.client.request("practice", ["bank": "world-capitals"])["ok"] == true)
            let db = try server.database()
            defer { db.close() }
            try db.query("""
                INSERT INTO match_queue (player_id, bank_id, rating, enqueued_at)
                VALUES (\(x.id)::uuid, (SELECT id FROM banks WHERE slug = 'world-capitals'), 1500, now() - interval '1 minute')
                """)
            let y = try await TestPlayer.signUp(server.url)
            let z = try await TestPlayer.signUp(server.url)
            _ = try await y.client.request("queue", ["bank": "world-capitals"])
            _ = try await z.client.request("queue", ["bank": "world-capitals"])
            #expect(await y.client.nextEvent("init", timeout: .seconds(5)) != nil)
            #expect(await z.client.nextEvent("init", timeout: .seconds(5)) != nil)
        }
    }
}
