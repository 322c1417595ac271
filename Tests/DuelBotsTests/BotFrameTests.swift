import DuelCore
import Testing
@testable import DuelBots

/// The bots' field scanner reads what the full parser would, and notices what the rule checks need.
@Suite struct BotFrameTests {
    static let revealFrame = """
        {"op":"event","event":"reveal","table":"duels","type":"UPDATE","duel_id":"d7","seq":5,\
        "commit_timestamp":"2026-11-21T22:40:00.260Z","server_time_ms":1763764800262,\
        "record":{"id":"d7","bank":"world-capitals","state":"reveal",\
        "players":[{"id":"a1","username":"ada \\"A\\"","rating":1500,"score":0,"connected":true},\
        {"id":"b2","username":"bo","rating":1500,"score":160,"connected":true}],\
        "question_count":10,"question_index":0,\
        "question":{"index":0,"question_id":17,"prompt":"What is the capital of Peru?",\
        "choices":["Quito","Lima","Bogotá","La Paz"],"opens_at_ms":1763764803260,"deadline_ms":1763764813260},\
        "answers":[{"player":"a1","correct":false,"at_ms":1763764805360},{"player":"b2","correct":true,"at_ms":1}],\
        "reveal":{"question_index":0,"correct_choice":1,"choices":{"a1":0,"b2":1},"points":{"a1":0,"b2":160}},\
        "result":null}}
        """

    func read(_ text: String) -> (Bool, BotFrame) {
        var frame = BotFrame()
        let ok = Array(text.utf8).withUnsafeBytes { frame.read($0) }
        return (ok, frame)
    }

    func hash(_ text: String) -> UInt64 {
        Array(text.utf8).withUnsafeBytes { $0.fnv1a }
    }

    @Test func aRevealEventHasEveryFieldTheBotsRead() {
        let (ok, frame) = read(Self.revealFrame)
        #expect(ok)
        #expect(frame.op == .event)
        #expect(frame.event == .reveal)
        #expect(frame.duelID == hash("d7"))
        #expect(frame.seq == 5)
        #expect(frame.state == .reveal)
        #expect(frame.questionIndex == 0)
        #expect(frame.question == BotFrame.Question(
            index: 0, questionID: 17, choiceCount: 4, deadlineMs: 1_763_764_813_260, hasCorrectChoice: false))
        #expect(frame.answers == [
            .init(player: hash("a1"), correct: false, hasChoice: false),
            .init(player: hash("b2"), correct: true, hasChoice: false),
        ])
        #expect(frame.hasReveal)
        #expect(frame.reveal.correctChoice == 1)
        #expect(frame.reveal.points.map(\.points) == [0, 160])
        #expect(frame.reveal.points.map(\.player) == [hash("a1"), hash("b2")])
        #expect(frame.players == [.init(id: hash("a1"), score: 0), .init(id: hash("b2"), score: 160)])
        // The full parser agrees that this is one valid JSON object.
        #expect((try? JSONParser.parse(Self.revealFrame)) != nil)
    }

    @Test func theDuelIDRangePointsAtItsRawBytes() {
        let bytes = Array(Self.revealFrame.utf8)
        var frame = BotFrame()
        #expect(bytes.withUnsafeBytes { frame.read($0) })
        #expect(frame.duelIDRange.map { String(decoding: bytes[$0], as: UTF8.self) } == "d7")
    }

    @Test func repliesAndErrorsCarryRefOkAndCode() {
        let (_, reply) = read(#"{"op":"reply","ref":12,"ok":true,"data":{"correct":false,"points":0}}"#)
        #expect(reply.op == .reply && reply.ref == 12 && reply.ok && reply.code == nil)
        let (_, error) = read(#"{"op":"error","ref":8,"code":"locked_out","message":"your opponent already won that question"}"#)
        #expect(error.op == .error && error.ref == 8 && !error.ok && error.code == "locked_out")
        // A string ref is never one of the bots' (they send integers); the frame is still read.
        let (ok, other) = read(#"{"op":"error","ref":"r1","code":"rate_limited","message":"x"}"#)
        #expect(ok && other.ref == nil && other.code == "rate_limited")
        // A frame is reset between reads.
        var frame = BotFrame()
        _ = Array(Self.revealFrame.utf8).withUnsafeBytes { frame.read($0) }
        _ = Array(#"{"op":"reply","ref":1,"ok":true}"#.utf8).withUnsafeBytes { frame.read($0) }
        #expect(frame.event == nil && frame.seq == nil && !frame.hasRecord && frame.answers.isEmpty && frame.players.isEmpty)
    }

    @Test func leaksAreVisibleToTheRuleChecks() {
        let (_, question) = read("""
            {"op":"event","event":"question","duel_id":"d","seq":2,"record":{"state":"question",\
            "question":{"index":1,"choices":["a","b"],"correct_choice":1},\
            "answers":[{"player":"a1","correct":false,"choice":0}],"reveal":{"correct_choice":1}}}
            """)
        #expect(question.question.hasCorrectChoice)
        #expect(question.answers.first?.hasChoice == true)
        #expect(question.state == .question && question.hasReveal)
        let (_, clean) = read(#"{"op":"event","event":"question","record":{"state":"countdown","reveal":null,"question":null}}"#)
        #expect(!clean.hasReveal && !clean.hasQuestion && !clean.question.hasCorrectChoice)
    }

    @Test func questionTypesAreReadAndEveryKeyIsALeak() {
        let (_, text) = read("""
            {"op":"event","event":"question","record":{"state":"question",\
            "question":{"index":0,"type":"text","choices":[]},"answers":[{"player":"a","correct":false}]}}
            """)
        #expect(text.question.type == .text && text.question.choiceCount == 0 && !text.question.hasCorrectChoice)
        #expect(text.answers.first?.hasChoice == false)
        for key in [#""accepted":["Paris"]"#, #""correct_choices":[0,2]"#, #""correct_number":3.5"#] {
            let (_, leaked) = read(#"{"op":"event","record":{"question":{"index":0,"type":"text","#
                + key + #"},"answers":[{"player":"a","correct":true,"text":"x"}]}}"#)
            #expect(leaked.question.hasCorrectChoice, "\(key)")
            #expect(leaked.answers.first?.hasChoice == true)
        }
    }

    @Test func oddButValidValuesAreSkippedAndBrokenFramesRejected() {
        let (ok, frame) = read(#" {"x":[1.5e3,-2,{"y":[[]]},"\"}"],"seq":3.0,"op":"event","z":null,"event":"complete"} "#)
        #expect(ok && frame.op == .event && frame.event == .complete)
        #expect(frame.seq == nil, "a number with a fraction is not read as an integer")
        for broken in ["", "[]", "{", #"{"op":"reply""#, #"{"op":"reply",}"#, #"{"op" "reply"}"#, #"{"a":1} x"#,
                       String(repeating: "[", count: 100)] {
            #expect(!read(broken).0, "\(broken)")
        }
    }

    @Test func requestsAreTheJSONTheServerExpects() throws {
        var writer = RequestWriter()
        writer.answer(ref: 7, duelID: Array("d7…".utf8), questionIndex: 3, choice: 1)
        #expect(try JSONParser.parse(writer.bytes) == .object([
            "op": "answer", "ref": 7, "duel_id": "d7…", "question_index": 3, "choice": 1,
        ]))
        writer.queue(ref: 8, bankJSON: Array(JSONValue.string("world-capitals").serialized.utf8))
        #expect(try JSONParser.parse(writer.bytes) == .object(["op": "queue", "ref": 8, "bank": "world-capitals"]))
        writer.cancel(ref: 9)
        #expect(try JSONParser.parse(writer.bytes) == .object(["op": "cancel", "ref": 9]))
        writer.answer(ref: 11, duelID: Array("d7".utf8), questionIndex: 2, kind: .multiple, pick: 3)
        #expect(try JSONParser.parse(writer.bytes) == .object([
            "op": "answer", "ref": 11, "duel_id": "d7", "question_index": 2, "choices": [3],
        ]))
        writer.answer(ref: 12, duelID: Array("d7".utf8), questionIndex: 2, kind: .text, pick: 0)
        #expect(try JSONParser.parse(writer.bytes)["text"] == "?")
        writer.answer(ref: 13, duelID: Array("d7".utf8), questionIndex: 2, kind: .number, pick: 0)
        #expect(try JSONParser.parse(writer.bytes)["number"] == 0)
        writer.forfeit(ref: 10, duelID: Array("d7".utf8))
        #expect(try JSONParser.parse(writer.bytes) == .object(["op": "forfeit", "ref": 10, "duel_id": "d7"]))
    }
}
