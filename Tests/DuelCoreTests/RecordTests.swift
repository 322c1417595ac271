import Foundation
import Testing
@testable import DuelCore

@Suite struct RecordTests {
    @Test func theRecordHasTheProtocolFields() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        let json = duel.record(for: Fixture.alice)!.json
        guard case .object(let object) = json else { Issue.record("not an object"); return }
        #expect(object.pairs.map(\.key) == [
            "id", "bank", "mode", "rated", "state", "players", "question_count", "question_index", "question",
            "phase_ends_at_ms", "answers", "reveal", "result",
        ])
        #expect(json["mode"] == "ranked" && json["rated"] == true)
        #expect(json["state"] == "question")
        #expect(json["question"]?["deadline_ms"] == .int(13_000))
        #expect(json["question"]?["question_id"] == .int(100))
        #expect(json["players"] == .array([
            .object(["id": "p-alice", "username": "alice", "rating": 1500, "score": 0, "connected": true, "lag_ms": 0]),
            .object(["id": "p-bob", "username": "bob", "rating": 1500, "score": 0, "connected": true, "lag_ms": 0]),
        ]))
    }

    /// Issue 27: the record says when its phase ends, so a client counts down by the server's
    /// figures (the countdown is an operator setting).
    @Test func theRecordSaysWhenItsPhaseEnds() {
        var (duel, first) = Fixture.duel()
        #expect(first.events[0].record.phaseEndsAtMs == 3_000)
        #expect(first.events[0].record.json["phase_ends_at_ms"] == .int(3_000))
        let open = duel.advance(nowMs: 3_000)
        #expect(open.events.last?.record.phaseEndsAtMs == 13_000)
        let won = duel.answer(player: Fixture.alice, questionIndex: 0, choice: Fixture.correct(0), atMs: 4_000)
        #expect(won.events.first { $0.kind == .reveal }?.record.phaseEndsAtMs == 6_000)
        // The next question opened in the same step, at the pause's end (issue 25).
        #expect(won.events.last?.kind == .question)
        #expect(won.events.last?.atMs == 6_000)
        #expect(won.events.last?.record.question?.opensAtMs == 6_000)
        #expect(won.events.last?.record.phaseEndsAtMs == 16_000)
    }

    @Test func beforeTheRevealNeitherTheAnswerNorTheOpponentsPickShows() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        let step = duel.answer(player: Fixture.bob, questionIndex: 0, choice: 3, atMs: 4_000)
        for viewer in [Fixture.alice, Fixture.bob] {
            let text = duel.record(for: viewer)!.json.serialized
            #expect(!text.contains("correct_choice"))
            #expect(text.contains(#""answers":[{"player":"p-bob","correct":false,"at_ms":4000,"credit_ms":0}]"#))
            #expect(text.contains(#""reveal":null"#))
        }
        #expect(step.events[0].record == duel.record(for: Fixture.alice))
    }

    @Test func theRevealShowsEveryPickAndTheCorrectChoice() {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: Fixture.bob, questionIndex: 0, choice: 3, atMs: 4_000)
        let step = duel.answer(player: Fixture.alice, questionIndex: 0, choice: 0, atMs: 5_000)
        let reveal = step.events[1].record.json["reveal"]
        #expect(reveal == .object([
            "question_index": 0,
            "type": "single",
            "correct_choice": 0,
            "choices": .object(["p-alice": 0, "p-bob": 3]),
            "answers": .object(["p-alice": .object(["choice": 0]), "p-bob": .object(["choice": 3])]),
            "points": .object(["p-alice": 180, "p-bob": 0]),
        ]))
    }

    @Test func theCompleteRecordCarriesTheResult() {
        var (duel, _) = Fixture.duel(questions: 1)
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: Fixture.alice, questionIndex: 0, choice: 0, atMs: 3_000)
        let step = duel.advance(nowMs: 5_000)
        let result = step.events[0].record.json["result"]
        #expect(result?["winner"] == "p-alice")
        #expect(result?["reason"] == "completed")
        #expect(result?["ratings"]?["p-alice"]?["before"] == 1500)
        #expect((result?["ratings"]?["p-alice"]?["after"]?.integer ?? 0) > 1500)
        #expect(step.events[0].record.json["reveal"]?["question_index"] == 0)
    }

    @Test func theEventEnvelopeIsARowChange() throws {
        let (_, step) = Fixture.duel()
        let text = ServerMessage.duelEvent(step.events[0], serverTimeMs: 1_763_764_801_123)
        let json = try JSONParser.parse(text) as JSONValue
        #expect(json["op"] == "event")
        #expect(json["event"] == "init")
        #expect(json["table"] == "duels")
        #expect(json["type"] == "INSERT")
        #expect(json["duel_id"] == "d-1")
        #expect(json["seq"] == 1)
        #expect(json["commit_timestamp"] == "1970-01-01T00:00:00.000Z")
        #expect(json["server_time_ms"] == .int(1_763_764_801_123))
        #expect(json["record"]?["state"] == "countdown")
    }

    @Test func timestampsAreISO8601UTCWithMilliseconds() {
        #expect(Timestamp.iso8601(ms: 1_763_764_801_123) == "2025-11-21T22:40:01.123Z")
        #expect(Timestamp.iso8601(ms: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(Timestamp.iso8601(ms: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.iso8601(ms: -62_135_596_800_000) == "0001-01-01T00:00:00.000Z")
        // Foundation's formatter as the reference, over 400 years of scattered instants.
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime]
        reference.timeZone = TimeZone(identifier: "UTC")
        var seconds: Int64 = -5_000_000_000
        var milli: Int64 = 0
        while seconds < 7_600_000_000 {
            let whole = reference.string(from: Date(timeIntervalSince1970: Double(seconds)))
            let fraction = String(milli + 1000).dropFirst()
            #expect(Timestamp.iso8601(ms: seconds * 1000 + milli) == whole.dropLast() + "." + fraction + "Z")
            seconds += 9_876_543
            milli = (milli + 211) % 1000
        }
    }

    /// The envelope is written field by field into one buffer: it says what the same fields as a
    /// JSON object say, whatever the id holds.
    @Test func theEnvelopeMatchesItsFieldsAsAnObject() throws {
        for (duelID, seq, atMs) in [("d-1", 1, Int64(0)), (#"odd "id" \ \n"#, 12, 1_763_764_801_123),
                                    ("0123abcd-4567-89ef-0123-456789abcdef", 31, 951_782_400_999)] {
            let record = #"{"state":"question","scores":{"a":3}}"#
            let text = ServerMessage.duelEvent(kind: .answered, duelID: duelID, seq: seq, atMs: atMs,
                                               recordJSON: record, serverTimeMs: 1_763_764_801_500)
            let expected = JSONValue.object([
                "op": "event", "event": "answered", "table": "duels", "type": "UPDATE", "duel_id": .string(duelID),
                "seq": .int(Int64(seq)), "commit_timestamp": .string(Timestamp.iso8601(ms: atMs)),
                "server_time_ms": .int(1_763_764_801_500), "record": try JSONParser.parse(record) as JSONValue,
            ]).serialized
            #expect(text == expected)
        }
    }
}
