import DuelCore

/// The lane's writes on Citus (issue 24). The one statement of ``DuelWrites/write(on:now:announces:shardByShard:)``
/// (writing CTEs, `INSERT … SELECT FROM unnest`) makes Citus commit with two phases even when
/// every row is in one shard: it runs the outer query on the coordinator, and it inserts the
/// rows of an `INSERT … SELECT` with COPY. So here the same rows go in one statement per table,
/// the inserts as multi-row `VALUES`, each of which Citus sends to the batch's shard alone; the
/// NOTIFY stays on the coordinator. Measured on a cluster: 0 two-phase commits per batch
/// (Tests/citus/run), against one per batch with the single statement.
extension DuelWrites {
    func writeShardByShard(on connection: PGConnection, now: String?, payloads: [String]) throws {
        if !rows.isEmpty {
            let duelIDs = PGBinaryArray.uuids(rows.map { $0.duel })
            try connection.query("""
                UPDATE duels d
                   SET state = u.state, last_seq = u.last_seq, next_deadline_ms = u.next_deadline_ms,
                       inputs = u.inputs, questions_opened = u.questions_opened,
                       finished_at = CASE WHEN u.state = 'finished' THEN \(now)::timestamptz END,
                       winner = u.winner::uuid, finish_reason = u.finish_reason
                  FROM unnest(\(duelIDs)::uuid[], \(.texts(rows.map { $0.row.phase.rawValue }))::text[],
                              \(.ints(rows.map { $0.row.lastSeq }))::int[], \(.bigints(rows.map { $0.row.nextDeadlineMs }))::bigint[],
                              \(.ints(rows.map { $0.version }))::int[], \(.ints(rows.map { $0.row.questionsOpened }))::int[],
                              \(.texts(rows.map { $0.row.result?.winnerAccount }))::text[],
                              \(.texts(rows.map { $0.row.result?.reason.rawValue }))::text[])
                       AS u(id, state, last_seq, next_deadline_ms, inputs, questions_opened, winner, finish_reason)
                 WHERE d.id = u.id AND d.id = ANY(\(duelIDs)::uuid[])
                """)
        }
        if !inputs.isEmpty {
            let submissions = AnswerColumns(inputs.map { item -> Submission? in
                if case .answer(_, _, let submission, _) = item.input { return submission }
                return nil
            })
            try connection.query(Self.values(
                into: "duel_inputs",
                columns: [("duel_id", "?::uuid"), ("n", "?::int"), ("kind", "?"), ("player_id", "?::uuid"),
                          ("question_index", "?::int"), ("choice", "?::int"), ("at_ms", "?::bigint"),
                          ("choices", "?::int[]"), ("answer_text", "?"), ("answer_number", "?::float8"),
                          ("lag_ms", "?::int")],
                rows: inputs.indices.map { i in
                    let item = inputs[i]
                    var index: String?
                    if case .answer(_, let question, _, _) = item.input { index = String(question) }
                    return [item.duel, String(item.n), item.input.kind.rawValue, item.input.player, index,
                            submissions.choice[i].map(String.init), String(item.input.atMs), submissions.choices[i],
                            submissions.text[i], submissions.number[i].map { String($0) }, item.input.lagMs.map { String($0) }]
                }))
        }
        if !answers.isEmpty {
            let submissions = AnswerColumns(answers.map { Optional($0.new.answer.submission) })
            try connection.query(Self.values(
                into: "duel_answers",
                columns: [("duel_id", "?::uuid"), ("question_index", "?::int"), ("player_id", "?::uuid"),
                          ("choice", "?::int"), ("correct", "?::boolean"), ("points", "?::int"),
                          ("elapsed_ms", "?::int"), ("answered_at", "to_timestamp(?::bigint / 1000.0)"),
                          ("choices", "?::int[]"), ("answer_text", "?"), ("answer_number", "?::float8")],
                rows: answers.indices.map { i in
                    let (duel, new) = answers[i]
                    return [duel, String(new.questionIndex), new.answer.player, submissions.choice[i].map(String.init),
                            new.answer.correct ? "t" : "f", String(new.answer.points), String(new.elapsedMs),
                            String(new.answer.atMs), submissions.choices[i], submissions.text[i], submissions.number[i].map { String($0) }]
                }))
        }
        if !events.isEmpty {
            try connection.query(Self.values(
                into: "duel_events",
                columns: [("duel_id", "?::uuid"), ("seq", "?::int"), ("kind", "?"), ("at_ms", "?::bigint"),
                          ("record", "?::json")],
                rows: events.map { [$0.duelID, String($0.seq), $0.kind.rawValue, String($0.atMs), $0.recordJSON] }))
        }
        if !payloads.isEmpty {
            try connection.query(Self.notifyStatement(payloads))
        }
    }

    /// `INSERT INTO table (columns) VALUES (…), (…)` with every value bound; each column's
    /// expression has a `?` where its value goes.
    static func values(into table: String, columns: [(name: String, expression: String)], rows: [[String?]]) -> SQLQuery {
        var sql = "INSERT INTO \(table) (" + columns.map(\.name).joined(separator: ", ") + ") VALUES "
        var binds: [PGValue] = []
        binds.reserveCapacity(rows.count * columns.count)
        // Each expression split once at its `?`: Foundation's replacingOccurrences on every value
        // was 2.4 % of the lane thread at human pace (a settled game's record goes through here).
        let parts = columns.map { column -> (before: Substring, after: Substring) in
            guard let mark = column.expression.firstIndex(of: "?") else { return (column.expression[...], "") }
            return (column.expression[..<mark], column.expression[column.expression.index(after: mark)...])
        }
        for (r, row) in rows.enumerated() {
            sql += r == 0 ? "(" : ", ("
            for (c, value) in row.enumerated() {
                binds.append(value.map(PGValue.text) ?? .null)
                if c > 0 { sql += ", " }
                sql += parts[c].before
                sql += "$\(binds.count)"
                sql += parts[c].after
            }
            sql += ")"
        }
        return SQLQuery(sql, binds: binds)
    }
}
