import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// On one connection a duel's events arrive strictly increasing and gap-free from the
    /// point `resume` asked for, even when live events race the replay (issue 10 item 3).
    @Suite(.serialized) struct ResumeOrderTests {
        @Test func liveEventsWaitForTheReplay() async throws {
            // One database worker, so a blocked login holds the resume's read back while the
            // duel goes on through its lane. As deployed, the replay is derived from the log.
            let server = try TestServer.start {
                $0.database.connections = 1
                $0.database.storesEveryEvent = false
            }
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            #expect(await a.client.nextEvent("question") != nil)
            let (second, auth) = try await b.reconnect(server.url)
            #expect(auth["ok"] == true)

            // Hold the only worker: a login waits for the throttle's advisory lock, held here.
            let blocker = try server.database()
            defer { blocker.close() }
            try blocker.query("SELECT pg_advisory_lock(hashtext('u:' || lower('blocked-user')))")
            let stuck = try DuelClient(url: server.url)
            try await stuck.connect()
            stuck.sendRaw(#"{"op":"login","ref":1,"username":"blocked-user","password":"whatever1"}"#)
            try await Task.sleep(for: .milliseconds(200))
            second.client.sendRaw(#"{"op":"resume","ref":"r","duel_id":"\#(duel)","after_seq":0}"#)
            try await Task.sleep(for: .milliseconds(100))
            // A live event while the replay waits.
            _ = try await a.client.request("answer", ["duel_id": .string(duel), "question_index": 0, "choice": 0])
            try await Task.sleep(for: .milliseconds(200))
            try blocker.query("SELECT pg_advisory_unlock_all()")

            try await Task.sleep(for: .seconds(1))
            let seqs = second.client.transcript.compactMap { text -> Int? in
                guard let message = try? JSONParser.parse(Array(text.utf8)), message["duel_id"]?.string == duel,
                      message["event"] != nil, let seq = message["seq"]?.integer else { return nil }
                return Int(seq)
            }
            #expect(!seqs.isEmpty)
            #expect(seqs == Array(1...(seqs.last ?? 1)), "events on the resumed connection: \(seqs)")
        }
    }
}
