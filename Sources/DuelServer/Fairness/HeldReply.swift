import DuelCore
import DuelStore

/// The reply to an `answer` that waits for its question's settle (issue 26): the verdict is
/// not known when the answer is taken, and a reply before it would tell the player more than
/// the others know.
///
/// The verdict is read from the question's `reveal` record, the same on every instance: the
/// settle may be judged by another instance's lane, and this one hears of it only through the
/// events it delivers. An answer the reveal lists was judged (its correctness, and the points
/// the reveal gives); one it does not list was locked out by an answer credited earlier. Pure.
struct HeldReply {
    let ref: RequestRef?
    let questionIndex: Int
    /// The duel's seq when the answer was taken: the settle's events come after it.
    let afterSeq: Int
    /// When the answer arrived, for the latency figure.
    let arrivedMs: Int64

    enum Verdict: Equatable {
        case answered(correct: Bool, points: Int)
        case refused(ProtocolError)
    }

    /// The verdict `player` gets from the first reveal of the question among `events`; nil when
    /// none of them reveals it.
    func verdict(in events: [StoredEvent], for player: PlayerID) -> Verdict? {
        for event in events where event.seq > afterSeq && event.kind == .reveal {
            guard let record = try? JSONParser.parse(event.recordJSON),
                  record["reveal"]?["question_index"] == .int(Int64(questionIndex)) else { continue }
            guard case .array(let answers)? = record["answers"],
                  let mine = answers.first(where: { $0["player"] == .string(player) }) else {
                return .refused(ProtocolError(.lockedOut))
            }
            var points = 0
            if case .int(let value)? = record["reveal"]?["points"]?[player] { points = Int(value) }
            return .answered(correct: mine["correct"] == .bool(true), points: points)
        }
        return nil
    }
}
