import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// Issue 25: the round that reveals a question opens the next one, stamped at the pause's end,
    /// and stores its `question` event then. No connection gets that event before its time: not
    /// live, not in a `resume`, not at sign-in; and a game that ends in the pause sends it just
    /// before the end, which shows the question just revealed.
    @Suite(.serialized) struct QuestionAheadTests {
        /// A long reveal pause to look inside.
        static let pause = DuelConfiguration(
            countdownMs: 100, answerWindowMs: 5_000, revealMs: 1_500, abandonAfterMs: 10_000, questionCount: 2)

        /// The events of `duel` in a transcript that show question `index` (its own event).
        static func questionEvents(_ transcript: [String], duel: String, index: Int64) -> [JSONValue] {
            duelEvents(transcript, duel: duel).filter {
                $0["event"] == "question" && $0["record"]?["question"]?["index"]?.integer == index
            }
        }

        static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1_000) }

        @Test func theNextQuestionReachesNoConnectionBeforeItOpens() async throws {
            let server = try TestServer.start { $0.duel = Self.pause }
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            guard await a.client.nextEvent("question") != nil, await b.client.nextEvent("question") != nil else {
                throw DuelClientError.timeout("question")
            }
            let key = try correctChoice(server, duel: duel, index: 0)
            let won = try await a.client.request("answer", ["duel_id": .string(duel), "question_index": .number(0), "choice": .number(key)])
            #expect(won["ok"] == true)
            guard let reveal = await b.client.nextEvent("reveal"), let pauseEnd = reveal["record"]?["phase_ends_at_ms"]?.integer else {
                throw DuelClientError.timeout("reveal")
            }
            // The store already holds question 1, opened at the pause's end...
            let db = try server.database()
            defer { db.close() }
            let stored = try db.query("""
                SELECT at_ms FROM duel_events WHERE duel_id = \(duel)::uuid AND kind = 'question' ORDER BY seq
                """).map { try $0.int64("at_ms") }
            #expect(stored.count == 2 && stored.last == pauseEnd, "stored question events at \(stored), pause ends \(pauseEnd)")
            // ...but a sign-in in the pause shows the reveal, and a resume replays up to it.
            let (again, auth) = try await b.reconnect(server.url)
            #expect(auth["data"]?["duel"]?["state"] == "reveal")
            let resumed = try await again.client.request("resume", ["duel_id": .string(duel), "after_seq": 0])
            #expect(resumed["ok"] == true)
            let early = pauseEnd - 300
            if Self.nowMs() < early { try await Task.sleep(for: .milliseconds(early - Self.nowMs())) }
            #expect(Self.nowMs() < pauseEnd, "the test ran past the pause; it proves nothing")
            for client in [a.client, b.client, again.client] {
                #expect(Self.questionEvents(client.transcript, duel: duel, index: 1).isEmpty, "question 1 before it opened")
            }
            // At its time it reaches every connection, once and in order.
            try await Task.sleep(for: .milliseconds(pauseEnd + 700 - Self.nowMs()))
            for client in [a.client, b.client, again.client] {
                #expect(Self.questionEvents(client.transcript, duel: duel, index: 1).count == 1)
                let seqs = duelEvents(client.transcript, duel: duel).compactMap { $0["seq"]?.integer }
                #expect(seqs.last == seqs.first.map { $0 + Int64(seqs.count) - 1 }, "\(seqs)")
            }
            let answer = try await b.client.request("answer", ["duel_id": .string(duel), "question_index": .number(1), "choice": .number(0)])
            #expect(answer["ok"] == true)
        }

        /// As deployed, storing only the game's end.
        @Test func aForfeitInThePauseSendsTheHeldQuestionThenTheEnd() async throws {
            let server = try TestServer.start {
                $0.duel = Self.pause
                $0.database.storesEveryEvent = false
            }
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            guard await a.client.nextEvent("question") != nil else { throw DuelClientError.timeout("question") }
            let key = try correctChoice(server, duel: duel, index: 0)
            _ = try await a.client.request("answer", ["duel_id": .string(duel), "question_index": .number(0), "choice": .number(key)])
            guard let reveal = await a.client.nextEvent("reveal"), let pauseEnd = reveal["record"]?["phase_ends_at_ms"]?.integer else {
                throw DuelClientError.timeout("reveal")
            }
            // An answer to the question opened ahead, before it opens: not open yet.
            let early = try await b.client.request("answer", ["duel_id": .string(duel), "question_index": .number(1), "choice": .number(0)])
            #expect(early["code"] == "wrong_question", "\(early.serialized)")
            _ = try await b.client.request("forfeit", ["duel_id": .string(duel)])
            guard let complete = await a.client.nextEvent("complete", timeout: .seconds(1)) else {
                throw DuelClientError.timeout("complete")
            }
            #expect(Self.nowMs() < pauseEnd, "the end waited for the pause")
            #expect(complete["record"]?["question"]?["index"] == 0)
            #expect(complete["record"]?["reveal"]?["question_index"] == 0)
            #expect(complete["record"]?["result"]?["winner"] == .string(a.id))
            let seqs = duelEvents(a.client.transcript, duel: duel).compactMap { $0["seq"]?.integer }
            #expect(seqs == Array(1...Int64(seqs.count)), "\(seqs)")
            #expect(Self.questionEvents(a.client.transcript, duel: duel, index: 1).count == 1)
            checkNothingLeaks(a.client.transcript)
            checkNothingLeaks(b.client.transcript)
            // The unplayed question counts nowhere: the stored duel opened one.
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT questions_opened FROM duels WHERE id = \(duel)::uuid")[0].int("questions_opened") == 1)
        }
    }
}
