import DuelCore

extension PGRow {
    /// The answer stored in the columns `choice`, `choices` (or `choicesColumn`), `answer_text`
    /// and `answer_number` (at most one is set); nil when none is.
    func submission(choicesColumn: String = "choices") throws -> Submission? {
        if let choice = optionalString("choice").flatMap({ Int($0) }) { return .choice(choice) }
        if optionalString(choicesColumn) != nil { return .choices(try textArray(choicesColumn).compactMap { Int($0) }) }
        if let text = optionalString("answer_text") { return .text(text) }
        if optionalString("answer_number") != nil { return .number(try double("answer_number")) }
        return nil
    }
}

extension PGRow {
    /// A duel's players from its `a`, `b` and `more` columns (practice has no `b`; only a
    /// room's game of three or four has `more`).
    func seats() throws -> [PlayerID] {
        let first = try string("a")
        guard let second = optionalString("b") else { return [first] }
        guard optionalString("more") != nil else { return [first, second] }
        return [first, second] + (try textArray("more"))
    }
}
