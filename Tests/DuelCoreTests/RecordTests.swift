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
        #expect(won.events.last?.record.phaseEndsAtMs == 6_000)
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
    }
}
