import DuelCore

/// Answers as four parallel columns, one set per answer (`choice`, `choices`, `answer_text`,
/// `answer_number`), as `duel_inputs` and `duel_answers` store them. `choices` goes as the
/// text of a Postgres array (`{0,2}`), cast by the statement: unnest cannot take a 2-D array
/// of uneven rows.
struct AnswerColumns {
    private(set) var choice: [Int?] = [], choices: [String?] = [], text: [String?] = [], number: [Double?] = []

    init(_ submissions: [Submission?]) {
        choice.reserveCapacity(submissions.count)
        for submission in submissions { append(submission) }
    }

    mutating func append(_ submission: Submission?) {
        var row: (Int?, String?, String?, Double?) = (nil, nil, nil, nil)
        switch submission {
        case .choice(let value)?: row.0 = value
        case .choices(let values)?: row.1 = "{" + values.map(String.init).joined(separator: ",") + "}"
        case .text(let value)?: row.2 = value
        case .number(let value)?: row.3 = value
        case nil: break
        }
        choice.append(row.0); choices.append(row.1); text.append(row.2); number.append(row.3)
    }
}
