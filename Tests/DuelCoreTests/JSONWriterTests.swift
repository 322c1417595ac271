import Testing
@testable import DuelCore

/// The writer that builds event records without a tree, and the parser's paths for plain strings
/// and whole numbers (bench/NOTES.md item 45).
@Suite struct JSONWriterTests {
    @Test func writesWhatTheTreeSerializes() throws {
        var json = JSONWriter()
        json.object { json in
            json.key("s"); json.string("quote \" backslash \\ newline \n \u{01} é 😀")
            json.key("n"); json.int(-42)
            json.key("big"); json.int(Int64.max)
            json.key("t"); json.bool(true)
            json.key("f"); json.bool(false)
            json.key("nil"); json.null()
            json.key("empty"); json.array { _ in }
            json.key("none"); json.object { _ in }
            json.key("list")
            json.array { json in
                json.int(1)
                json.object { json in json.key("a"); json.value(.array([.double(2.5), .null])) }
                json.array { json in json.string("x"); json.string("y") }
            }
        }
        let tree: JSONValue = .object([
            "s": .string("quote \" backslash \\ newline \n \u{01} é 😀"), "n": .int(-42), "big": .int(Int64.max),
            "t": true, "f": false, "nil": .null, "empty": .array([]), "none": .object([:]),
            "list": .array([.int(1), .object(["a": .array([.double(2.5), .null])]), .array(["x", "y"])]),
        ])
        #expect(json.text == tree.serialized)
        #expect(try JSONParser.parse(json.text) == tree)
    }

    @Test func aRevealedRecordKeepsItsFieldOrder() throws {
        var (duel, _) = Fixture.duel()
        _ = duel.advance(nowMs: 3_000)
        _ = duel.answer(player: Fixture.alice, questionIndex: 0, submission: .choice(1), atMs: 4_000)
        // Past the question's deadline: revealed.
        let revealed = duel.advance(nowMs: 13_001)
        let record = try #require(revealed.events.first { $0.kind == .reveal }).record
        #expect(record.reveal != nil)
        let text = record.serialized
        // The record's text is its tree's, key for key (the tree is read back from the text).
        #expect(record.json.serialized == text)
        guard case .object(let object) = record.json else { Issue.record("not an object"); return }
        #expect(object.pairs.map(\.key) == [
            "id", "bank", "mode", "rated", "state", "players", "question_count", "question_index", "question",
            "phase_ends_at_ms", "answers", "reveal", "result",
        ])
        guard case .object(let reveal)? = record.json["reveal"] else { Issue.record("no reveal"); return }
        #expect(Array(reveal.pairs.map(\.key).prefix(3)) == ["question_index", "type", "correct_choice"])
        #expect(Array(reveal.pairs.map(\.key).suffix(3)) == ["choices", "answers", "points"])
        #expect(reveal["answers"]?[Fixture.alice] == .object(["choice": 1]))
    }

    @Test func plainStringsAndWholeNumbersReadAsBefore() throws {
        // The plain-string path ends at a quote; an escape or a control character sends the
        // string down the general path, which reads it whole again.
        #expect(try JSONParser.parse(#""plain""#) == .string("plain"))
        #expect(try JSONParser.parse(#""plain then \" escaped""#) == .string("plain then \" escaped"))
        #expect(try JSONParser.parse(#""é😀""#) == .string("é😀"))
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse("\"tab\there\"") }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0x61, 0xFF, 0x22]) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(#""unterminated"#) }
        // Whole numbers: up to 18 characters without a String, longer ones through Int64's own parse.
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-0") == .int(0))
        #expect(try JSONParser.parse("-7") == .int(-7))
        #expect(try JSONParser.parse("999999999999999999") == .int(999_999_999_999_999_999))
        #expect(try JSONParser.parse("-99999999999999999") == .int(-99_999_999_999_999_999))
        #expect(try JSONParser.parse("9223372036854775807") == .int(Int64.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(Int64.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        #expect(try JSONParser.parse(" [ 1 , 2 ]\n") == [1, 2] as JSONValue)
    }
}
