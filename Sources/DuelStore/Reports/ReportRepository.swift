import DuelCore

/// Players' reports to operators (issue 22). Runs on the connection it is given and keeps no
/// state.
///
/// Reports for operators (`report`): of a question, or of a player's quiz. Both share one
/// per-player quota, since both land in the operators' one list (`ops.open_reports`).
public struct ReportRepository {
    /// The connection every query runs on.
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    /// Flags a question. A question in a quiz the player may not see is `unknown_question`,
    /// as a missing one.
    public func report(player: PlayerID, question: Int64, reason: String, perHour: Int = 10) throws {
        try db.transaction { db in
            guard try !db.query("""
                SELECT 1 FROM questions q JOIN banks b ON b.id = q.bank_id
                 WHERE q.id = \(question) AND \(unsafeRaw: BankSummary.visible("b", to: player))
                """).isEmpty else { throw StoreError(.unknownQuestion) }
            try checkReportQuota(player: player, perHour: perHour)
            try db.query("""
                INSERT INTO question_reports (question_id, player_id, reason)
                VALUES (\(question), \(player)::uuid, \(reason))
                """)
        }
    }

    /// Flags a quiz the player may see (`report` with `quiz`).
    public func reportQuiz(slug: String, player: PlayerID, reason: String, perHour: Int = 10) throws {
        try db.transaction { db in
            guard let quiz = try QuizRepository(db).visibleQuiz(slug, viewer: player) else { throw StoreError(.unknownBank, "no such quiz") }
            try checkReportQuota(player: player, perHour: perHour)
            try db.query("""
                INSERT INTO question_reports (bank_id, player_id, reason) VALUES (\(quiz.bankID), \(player)::uuid, \(reason))
                """)
        }
    }

    /// `rate_limited` once the player filed `perHour` reports in the last hour (issue 23: one
    /// socket stored 60 in 3.4 s). The player's row is locked first, so two concurrent reports
    /// cannot both pass the count.
    private func checkReportQuota(player: PlayerID, perHour: Int) throws {
        try PlayerRepository(db).lockPlayers([player])
        let recent = try db.query("""
            SELECT count(*) AS n FROM question_reports
             WHERE player_id = \(player)::uuid AND created_at > now() - interval '1 hour'
            """)[0].int("n")
        guard recent < perHour else {
            throw StoreError(.rateLimited, "at most \(perHour) reports an hour; operators are reading the ones you sent")
        }
    }
}
