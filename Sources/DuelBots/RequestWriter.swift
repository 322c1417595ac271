/// Writes the bots' frequent requests straight into one reusable byte buffer
/// (no `JSONObject`, no String per request). Refs are integers, which the
/// protocol allows and which compare without allocating.
struct RequestWriter {
    private(set) var bytes: [UInt8] = []

    /// `{"op":"queue","ref":N,"bank":…}`; `bankJSON` is the bank already encoded as a JSON string.
    mutating func queue(ref: Int, bankJSON: [UInt8]) {
        start("queue", ref: ref)
        field("bank")
        bytes.append(contentsOf: bankJSON)
        end()
    }

    mutating func cancel(ref: Int) {
        start("cancel", ref: ref)
        end()
    }

    /// `duelID` is the id's raw bytes as the server wrote them between quotes.
    mutating func forfeit(ref: Int, duelID: [UInt8]) {
        start("forfeit", ref: ref)
        duel(duelID)
        end()
    }

    mutating func answer(ref: Int, duelID: [UInt8], questionIndex: Int, choice: Int) {
        start("answer", ref: ref)
        duel(duelID)
        field("question_index")
        number(questionIndex)
        field("choice")
        number(choice)
        end()
    }

    /// An answer to a question that is not one choice: `"choices":[pick]`, `"text":"?"` or
    /// `"number":0` (load bots guess; the answer is judged like any other).
    mutating func answer(ref: Int, duelID: [UInt8], questionIndex: Int, kind: BotFrame.QuestionKind, pick: Int) {
        start("answer", ref: ref)
        duel(duelID)
        field("question_index")
        number(questionIndex)
        switch kind {
        case .multiple:
            field("choices")
            append("[")
            number(pick)
            append("]")
        case .text:
            field("text")
            append(#""?""#)
        case .number:
            field("number")
            number(pick)
        case .single, .boolean:
            field("choice")
            number(pick)
        }
        end()
    }

    private mutating func start(_ op: StaticString, ref: Int) {
        bytes.removeAll(keepingCapacity: true)
        append(#"{"op":""#)
        append(op)
        append(#"","ref":"#)
        number(ref)
    }

    private mutating func duel(_ id: [UInt8]) {
        field("duel_id")
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: id)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func field(_ name: StaticString) {
        append(#",""#)
        append(name)
        append(#"":"#)
    }

    private mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    private mutating func end() {
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
