/// How a submission is stored: beside the other fields of the value that holds it (an answer,
/// a recorded answer), under the key of its kind: `choice` (the key of one-choice answers
/// from before issue 13), `choices`, `text` or `number`.
extension Submission: Codable {
    private enum CodingKeys: String, CodingKey { case choice, choices, text, number }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let choice = try c.decodeIfPresent(Int.self, forKey: .choice) {
            self = .choice(choice)
        } else if let choices = try c.decodeIfPresent([Int].self, forKey: .choices) {
            self = .choices(choices)
        } else if let text = try c.decodeIfPresent(String.self, forKey: .text) {
            self = .text(text)
        } else {
            self = .number(try c.decode(Double.self, forKey: .number))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .choice(let choice): try c.encode(choice, forKey: .choice)
        case .choices(let choices): try c.encode(choices, forKey: .choices)
        case .text(let text): try c.encode(text, forKey: .text)
        case .number(let number): try c.encode(number, forKey: .number)
        }
    }
}
