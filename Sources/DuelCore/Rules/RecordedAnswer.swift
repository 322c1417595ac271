/// One answer of a recorded opponent (issue 27: every player gets a first game): what a past
/// player answered to question `questionIndex` of the same questions, and how long after the
/// question opened. The engine gives it in at that time, as a deadline like the others
/// (``Duel/nextRecordedAnswer``), so a rebuild from the input log replays it the same way.
public struct RecordedAnswer: Sendable, Equatable {
    public let questionIndex: Int
    public let submission: Submission
    public let afterMs: Int64

    public init(questionIndex: Int, submission: Submission, afterMs: Int64) {
        self.questionIndex = questionIndex
        self.submission = submission
        self.afterMs = max(0, afterMs)
    }
}

/// Stored flat, the submission's key beside the others, as an answer's is.
extension RecordedAnswer: Codable {
    private enum CodingKeys: String, CodingKey { case questionIndex, afterMs }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(questionIndex: try c.decode(Int.self, forKey: .questionIndex), submission: try Submission(from: decoder),
                  afterMs: try c.decode(Int64.self, forKey: .afterMs))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(questionIndex, forKey: .questionIndex)
        try submission.encode(to: encoder)
        try c.encode(afterMs, forKey: .afterMs)
    }
}
