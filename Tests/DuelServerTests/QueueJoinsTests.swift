import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// `queue` requests written in batches (issue 25, ``QueueJoins``), over real sockets.
    @Suite(.serialized) struct QueueJoinsTests {
        @Test func requestsOfOneWindowCommitTogetherAndEachGetsItsOwnAnswer() async throws {
            // A long window, so that requests sent together surely share a batch.
            let server = try TestServer.start { $0.jobs.queueGatherMs = 400 }
            defer { server.stop() }
            let p0 = try await TestPlayer.signUp(server.url).client, p1 = try await TestPlayer.signUp(server.url).client
            let p2 = try await TestPlayer.signUp(server.url).client, p3 = try await TestPlayer.signUp(server.url).client
            let twice = try await TestPlayer.signUp(server.url).client
            let started = ContinuousClock.now
            async let a = p0.request("queue", ["bank": "general-science"])
            async let b = p1.request("queue", ["bank": "general-science"])
            async let c = p2.request("queue", ["bank": "world-capitals"])
            async let d = p3.request("queue", ["bank": "nope"])
            async let first = twice.request("queue", ["bank": "world-capitals"])
            async let second = twice.request("queue", ["bank": "world-capitals"])
            let replies = try await [a, b, c, d, first, second]
            // Nothing was answered before the window's end: the six went as one batch (its one
            // transaction: QueueAndDuelTests).
            #expect(ContinuousClock.now - started >= .milliseconds(350))
            #expect([replies[0], replies[1], replies[2]].allSatisfy { $0["data"]?["queued_at"]?.string != nil })
            #expect(replies[3]["code"] == "unknown_bank")
            // The same player's two requests: one queued, the other refused, as one after the other.
            let twiceCodes = [replies[4], replies[5]].map { $0["ok"] == true ? "ok" : $0["code"]?.string ?? "?" }
            #expect(twiceCodes.sorted() == ["already_queued", "ok"])
            // The matcher ran once the batch was in: the general-science pair plays.
            #expect(await p0.nextEvent("init", timeout: .seconds(10)) != nil)
            #expect(await p1.nextEvent("init", timeout: .seconds(10)) != nil)
        }

        /// A player who sends `queue` and leaves before the window ends is not written as a
        /// waiter: the close already took them out of matchmaking, and a row written after it
        /// would wait for a player nobody holds (and pair someone with them).
        @Test func aRequestWhoseConnectionClosedInTheWindowIsDropped() async throws {
            let server = try TestServer.start { $0.jobs.queueGatherMs = 400 }
            defer { server.stop() }
            let leaver = try await TestPlayer.signUp(server.url)
            let stayer = try await TestPlayer.signUp(server.url)
            leaver.client.sendRaw(#"{"op":"queue","ref":1,"bank":"general-science"}"#)
            try await Task.sleep(for: .milliseconds(50))
            leaver.client.close()
            _ = await leaver.client.waitClosed()
            // The stayer's request shares the window with the leaver's.
            #expect(try await stayer.client.request("queue", ["bank": "general-science"])["data"]?["queued_at"] != nil)
            try await Task.sleep(for: .milliseconds(300))
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM match_queue WHERE player_id = \(leaver.id)::uuid")[0].int("n") == 0)
            // Nobody to pair with: the stayer waits.
            #expect(await stayer.client.nextEvent("init", timeout: .milliseconds(800)) == nil)
            #expect(try db.query("SELECT count(*) AS n FROM match_queue WHERE player_id = \(stayer.id)::uuid")[0].int("n") == 1)
        }

        @Test func aZeroWindowSendsEachRequestAtOnce() async throws {
            let server = try TestServer.start { $0.jobs.queueGatherMs = 0 }
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            let started = ContinuousClock.now
            #expect(try await player.client.request("queue", ["bank": "general-science"])["data"]?["queued_at"] != nil)
            #expect(ContinuousClock.now - started < .milliseconds(350))
        }
    }
}
