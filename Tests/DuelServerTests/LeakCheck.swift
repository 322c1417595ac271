import DuelCore
import Testing

/// Rule 10 over a whole transcript: before a question's reveal, no frame to a
/// player holds its key or the opponent's answer. `secrets` (by question index) are
/// strings a key would show as, an accepted text or a number: no frame before that
/// question's reveal may contain them, in any letter case.
func checkNothingLeaks(
    _ transcript: [String], secrets: [Int: [String]] = [:], sourceLocation: SourceLocation = #_sourceLocation
) {
    var revealed: Set<Int> = []
    for frame in transcript {
        guard let message = try? JSONParser.parse(frame) else {
            Issue.record("unparseable frame \(frame)", sourceLocation: sourceLocation)
            continue
        }
        if let index = message["record"]?["reveal"]?["question_index"]?.integer { revealed.insert(Int(index)) }
        for (index, strings) in secrets where !revealed.contains(index) {
            for secret in strings {
                #expect(!frame.lowercased().contains(secret.lowercased()), "question \(index)'s key in \(frame)",
                        sourceLocation: sourceLocation)
            }
        }
        guard let record = message["record"], message["table"] == "duels" else {
            // Replies: an answer's reply tells only the author's own verdict.
            if let data = message["data"], data["correct"] != nil {
                #expect(data.objectKeys == ["correct", "points"], "\(frame)", sourceLocation: sourceLocation)
            }
            continue
        }
        let state = record["state"]?.string ?? ""
        if state == "countdown" || state == "question" {
            #expect(record["reveal"] == .null, "reveal before the reveal: \(frame)", sourceLocation: sourceLocation)
        }
        if let reveal = record["reveal"], reveal != .null {
            #expect(reveal["question_index"] == record["question_index"], sourceLocation: sourceLocation)
        }
        for key in ["correct_choice", "correct_choices", "accepted", "matching", "correct_number", "tolerance"] {
            #expect(record["question"]?[key] == nil, "\(key) in \(frame)", sourceLocation: sourceLocation)
        }
        if case .array(let answers)? = record["answers"] {
            for answer in answers {
                if case .object(let fields) = answer {
                    #expect(fields.pairs.map(\.key).sorted() == ["at_ms", "correct", "credit_ms", "player"], "\(frame)",
                            sourceLocation: sourceLocation)
                }
            }
        }
    }
}

/// Every duel event in a transcript, checked for gap-free seq from 1; returns them.
func duelEvents(_ transcript: [String], duel: String, sourceLocation: SourceLocation = #_sourceLocation) -> [JSONValue] {
    let events = transcript.compactMap { try? JSONParser.parse($0) }.filter { $0["duel_id"] == .string(duel) }
    let seqs = events.compactMap { $0["seq"]?.integer }
    #expect(seqs == Array(1...Int64(max(1, seqs.count))).prefix(seqs.count).map { $0 }, "seq not gap-free: \(seqs)",
            sourceLocation: sourceLocation)
    return events
}

extension JSONValue {
    /// An object's keys, sorted; empty for anything else.
    var objectKeys: [String] {
        if case .object(let object) = self { return object.pairs.map(\.key).sorted() }
        return []
    }
}
