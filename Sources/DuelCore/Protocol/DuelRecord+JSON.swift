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
                "choices": .array(question.choices.map { .string($0) }),
                "opens_at_ms": .int(question.opensAtMs),
                "deadline_ms": .int(question.deadlineMs),
            ])
        } ?? .null
        object["answers"] = .array(answers.map { answer in
            .object([
                "player": .string(answer.player),
                "correct": .bool(answer.correct),
                "at_ms": .int(answer.atMs),
            ])
        })
        object["reveal"] = reveal.map { reveal in
            .object([
                "question_index": .number(reveal.questionIndex),
                "correct_choice": .number(reveal.correctChoice),
                "choices": .object(JSONObject(players.map { player in
                    (player.id, (reveal.choices[player.id] ?? nil).map { .number($0) } ?? .null)
                })),
                "points": .object(JSONObject(players.map { player in
                    (player.id, .number(reveal.points[player.id] ?? 0))
                })),
            ])
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
