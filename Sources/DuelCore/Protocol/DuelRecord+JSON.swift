extension DuelRecord {
    /// The record as it goes on the wire, with PROTOCOL.md's snake_case field names.
    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id),
            "bank": .string(bank),
            "mode": .string(mode.rawValue),
            "rated": .bool(rated),
            "state": .string(state.rawValue),
            "players": .array(players.map { player in
                .object([
                    "id": .string(player.id),
                    "username": .string(player.username),
                    "rating": .number(player.rating),
                    "score": .number(player.score),
                    "connected": .bool(player.connected),
                    "lag_ms": .int(player.lagMs),
                ])
            }),
            "question_count": .number(questionCount),
            "question_index": .number(questionIndex),
        ]
        object["question"] = question.map { question in
            .object([
                "index": .number(question.index),
                "question_id": .int(question.questionID),
                "prompt": .string(question.prompt),
                "type": .string(question.type.rawValue),
                "choices": .array(question.choices.map { .string($0) }),
                "opens_at_ms": .int(question.opensAtMs),
                "deadline_ms": .int(question.deadlineMs),
            ])
        } ?? .null
        object["phase_ends_at_ms"] = phaseEndsAtMs.map { .int($0) } ?? .null
        object["answers"] = .array(answers.map { answer in
            .object([
                "player": .string(answer.player),
                "correct": .bool(answer.correct),
                "at_ms": .int(answer.atMs),
                "credit_ms": .int(answer.creditMs),
            ])
        })
        object["reveal"] = reveal.map { reveal in
            var fields: JSONObject = [
                "question_index": .number(reveal.questionIndex),
                "type": .string(reveal.key.type.rawValue),
            ]
            for (name, value) in reveal.key.json.pairs { fields[name] = value }
            // `choices` is version 1's map of picks; `answers` carries every type's answer.
            // (Read from `answers` directly: the computed `choices` map was rebuilt per player.)
            fields["choices"] = .object(JSONObject(players.map { player in
                (player.id, (reveal.answers[player.id] ?? nil)?.choice.map { .number($0) } ?? .null)
            }))
            fields["answers"] = .object(JSONObject(players.map { player in
                (player.id, (reveal.answers[player.id] ?? nil)?.json ?? .null)
            }))
            fields["points"] = .object(JSONObject(players.map { player in
                (player.id, .number(reveal.points[player.id] ?? 0))
            }))
            return .object(fields)
        } ?? .null
        object["result"] = result.map { result in
            .object([
                "winner": .optional(result.winner),
                "reason": .string(result.reason.rawValue),
                "ratings": .object(JSONObject(players.compactMap { player in
                    result.ratings[player.id].map { rating in
                        (player.id, .object(["before": .number(rating.before), "after": .number(rating.after)]))
                    }
                })),
                "placements": .object(JSONObject(players.compactMap { player in
                    result.placements[player.id].map { (player.id, .number($0)) }
                })),
            ])
        } ?? .null
        return .object(object)
    }
}

extension AnswerKey {
    /// The key's wire fields: `correct_choice` always (null when the type has no one right
    /// option), then the type's own: `correct_choices`, `accepted` and `matching`, or
    /// `correct_number` and `tolerance`.
    public var json: JSONObject {
        var fields: JSONObject = ["correct_choice": correctChoice.map { .number($0) } ?? .null]
        switch self {
        case .single, .boolean: break
        case .multiple(let correct): fields["correct_choices"] = .array(correct.sorted().map { .number($0) })
        case .text(let accepted, let matching):
            fields["accepted"] = .array(accepted.map { .string($0) })
            fields["matching"] = .string(matching.rawValue)
        case .number(let correct, let tolerance):
            fields["correct_number"] = .decimal(correct)
            fields["tolerance"] = .decimal(tolerance)
        }
        return fields
    }
}

extension Submission {
    /// An answer as the `answer` op sends it: `{"choice":2}`, `{"choices":[0,2]}`,
    /// `{"text":"..."}` or `{"number":3.5}`.
    public var json: JSONValue {
        switch self {
        case .choice(let choice): .object(["choice": .number(choice)])
        case .choices(let choices): .object(["choices": .array(choices.map { .number($0) })])
        case .text(let text): .object(["text": .string(text)])
        case .number(let number): .object(["number": .decimal(number)])
        }
    }
}

extension JSONValue {
    /// A number written as an integer when it is whole (`3`, not `3.0`).
    public static func decimal(_ value: Double) -> JSONValue {
        value.rounded() == value && abs(value) < 9.0e15 ? .int(Int64(value)) : .double(value)
    }
}
