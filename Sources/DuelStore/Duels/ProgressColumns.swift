import DuelCore

/// Finished games' facts as parallel columns for `record_progress` (sql/functions/public.record_progress.sql), which grants
/// XP, streak days, goals, levels and achievements in the transaction that finishes the games,
/// and returns the notifications' payloads. It does not NOTIFY: a NOTIFY in the lanes'
/// transactions queued every commit on Postgres's notify lock (the two-instance throughput
/// fell to half, bench/NOTES.md item 22); the server delivers them itself.
struct ProgressColumns {
    private var rows: [(facts: GameFacts, duel: String, bank: Int, mode: DuelMode, finishedMs: Int64)] = []

    var isEmpty: Bool { rows.isEmpty }

    mutating func append(_ facts: GameFacts, duelID: String, bankID: Int, mode: DuelMode, finishedAtMs: Int64) {
        rows.append((facts, duelID, bankID, mode, finishedAtMs))
    }

    func write(on connection: PGConnection) throws -> [String] {
        try Self.payloads(connection.query(statement()))
    }

    /// The notifications' payloads in the rows of ``statement()``.
    static func payloads(_ rows: [PGRow]) throws -> [String] {
        try rows.map { try $0.string("p") }
    }

    /// The one `record_progress` call for all the rows.
    func statement() -> SQLQuery {
        func column(_ value: (GameFacts) -> String?) -> PGArray { PGArray(rows.map { value($0.facts) }) }
        let duels = PGArray(rows.map { Optional($0.duel) }), banks = PGArray(rows.map { Optional(String($0.bank)) })
        let modes = PGArray(rows.map { Optional($0.mode.rawValue) })
        let finished = PGArray(rows.map { Optional(String($0.finishedMs)) })
        let flag = { (value: Bool) -> String? in value ? "t" : "f" }
        let players = column { $0.player }, correct = column { String($0.correct) }
        let questions = column { String($0.questions) }, first = column { flag($0.firstPlace) }
        let won = column { flag($0.won) }, stayed = column { flag($0.stayed) }, seats = column { String($0.players) }
        let fastest = column { $0.fastestCorrectMs.map { String($0) } }, answered = column { String($0.answered) }
        let rivals = column { String($0.rivalsAtFirstQuestion) }
        return """
            SELECT p FROM record_progress(\(duels)::uuid[], \(players)::uuid[], \(banks)::int[],
                                   \(modes)::text[], \(finished)::bigint[], \(correct)::int[],
                                   \(questions)::int[], \(first)::boolean[], \(won)::boolean[],
                                   \(stayed)::boolean[], \(seats)::int[], \(fastest)::bigint[],
                                   \(answered)::int[], \(rivals)::int[]) AS p
            """
    }
}
