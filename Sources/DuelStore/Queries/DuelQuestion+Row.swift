import DuelCore

extension DuelQuestion {
    /// The columns ``init(row:)`` reads, of `questions` under the alias `alias`.
    static func columns(_ alias: String) -> String {
        ["id", "prompt", "choices", "correct_choice", "type", "correct_choices", "accepted", "matching",
         "correct_number", "tolerance"].map { "\(alias).\($0)" }.joined(separator: ", ")
    }

    /// A question from the typed key columns of `questions` (migration 013), which the table's
    /// checks keep consistent with the type.
    init(row: PGRow) throws {
        let type = QuestionType(rawValue: row.optionalString("type") ?? "single")
        let key: AnswerKey
        switch type {
        case .single?: key = .single(correct: try row.int("correct_choice"))
        case .boolean?: key = .boolean(correct: try row.int("correct_choice") == 0)
        case .multiple?: key = .multiple(correct: Set(try row.textArray("correct_choices").compactMap { Int($0) }))
        case .text?:
            guard let matching = TextMatching(rawValue: try row.string("matching")) else {
                throw PGError.client("question \(try row.string("id")): unknown matching")
            }
            key = .text(accepted: try row.textArray("accepted"), matching: matching)
        case .number?: key = .number(correct: try row.double("correct_number"), tolerance: try row.double("tolerance"))
        case nil: throw PGError.client("question \(try row.string("id")): unknown type")
        }
        self.init(id: try row.int64("id"), prompt: try row.string("prompt"), choices: try row.textArray("choices"),
                  key: key)
    }
}
