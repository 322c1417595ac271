extension DuelRecord {
    /// The record as it goes on the wire, with PROTOCOL.md's snake_case field names: the one
    /// home of its form. Written straight into bytes, once per event on the answer path.
    public func write(into json: inout JSONWriter) {
        json.object { json in
            json.key("id"); json.string(id)
            json.key("bank"); json.string(bank)
            json.key("mode"); json.string(mode.rawValue)
            json.key("rated"); json.bool(rated)
            json.key("state"); json.string(state.rawValue)
            json.key("players")
            json.array { json in
                for player in players {
                    json.object { json in
                        json.key("id"); json.string(player.id)
                        json.key("username"); json.string(player.username)
                        json.key("rating"); json.int(player.rating)
                        json.key("score"); json.int(player.score)
                        json.key("connected"); json.bool(player.connected)
                        json.key("lag_ms"); json.int(player.lagMs)
                    }
                }
            }
            json.key("question_count"); json.int(questionCount)
            json.key("question_index"); json.int(questionIndex)
            json.key("question")
            if let question {
                json.object { json in
                    json.key("index"); json.int(question.index)
                    json.key("question_id"); json.int(question.questionID)
                    json.key("prompt"); json.string(question.prompt)
                    json.key("type"); json.string(question.type.rawValue)
                    json.key("choices")
                    json.array { json in for choice in question.choices { json.string(choice) } }
                    json.key("opens_at_ms"); json.int(question.opensAtMs)
                    json.key("deadline_ms"); json.int(question.deadlineMs)
                }
            } else {
                json.null()
            }
            json.key("phase_ends_at_ms")
            if let phaseEndsAtMs { json.int(phaseEndsAtMs) } else { json.null() }
            json.key("answers")
            json.array { json in
                for answer in answers {
                    json.object { json in
                        json.key("player"); json.string(answer.player)
                        json.key("correct"); json.bool(answer.correct)
                        json.key("at_ms"); json.int(answer.atMs)
                        json.key("credit_ms"); json.int(answer.creditMs)
                    }
                }
            }
            json.key("reveal")
            if let reveal { write(reveal, into: &json) } else { json.null() }
            json.key("result")
            if let result { write(result, into: &json) } else { json.null() }
        }
    }

    private func write(_ reveal: Reveal, into json: inout JSONWriter) {
        json.object { json in
            json.key("question_index"); json.int(reveal.questionIndex)
            json.key("type"); json.string(reveal.key.type.rawValue)
            for (name, value) in reveal.key.json.pairs {
                json.key(name); json.value(value)
            }
            // `choices` is version 1's map of picks; `answers` carries every type's answer.
            // (Read from `answers` directly: the computed `choices` map was rebuilt per player.)
            json.key("choices")
            json.object { json in
                for player in players {
                    json.key(player.id)
                    if let choice = (reveal.answers[player.id] ?? nil)?.choice { json.int(choice) } else { json.null() }
                }
            }
            json.key("answers")
            json.object { json in
                for player in players {
                    json.key(player.id)
                    if let answer = reveal.answers[player.id] ?? nil { json.value(answer.json) } else { json.null() }
                }
            }
            json.key("points")
            json.object { json in
                for player in players {
                    json.key(player.id); json.int(reveal.points[player.id] ?? 0)
                }
            }
        }
    }

    private func write(_ result: Result, into json: inout JSONWriter) {
        json.object { json in
            json.key("winner")
            if let winner = result.winner { json.string(winner) } else { json.null() }
            json.key("reason"); json.string(result.reason.rawValue)
            json.key("ratings")
            json.object { json in
                for player in players {
                    guard let rating = result.ratings[player.id] else { continue }
                    json.key(player.id)
                    json.object { json in
                        json.key("before"); json.int(rating.before)
                        json.key("after"); json.int(rating.after)
                    }
                }
            }
            json.key("placements")
            json.object { json in
                for player in players {
                    guard let place = result.placements[player.id] else { continue }
                    json.key(player.id); json.int(place)
                }
            }
        }
    }

    /// The record's JSON text (``write(into:)``).
    public var serialized: String {
        var json = JSONWriter(capacity: 1_024)
        write(into: &json)
        return json.text
    }

    /// The record as a tree, for tests and tools: read back from ``serialized``, so that its
    /// form has one home.
    public var json: JSONValue {
        // The writer's output is JSON by construction (JSONWriterTests); a record that did not
        // read back would be a bug in the writer, which a null here would hide from the tests.
        do {
            return try JSONParser.parse(serialized)
        } catch {
            preconditionFailure("a record's JSON did not read back: \(error)")
        }
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
