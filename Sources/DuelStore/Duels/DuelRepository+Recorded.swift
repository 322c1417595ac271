import DuelCore

/// Recorded games (issue 27): one player against a recording, so that every player gets a game
/// when nobody else is there.
extension DuelRepository {
    /// Whose recording a recorded game plays: a past player's (never saying whose), or the
    /// house's before anyone has finished a game of the bank.
    public enum RecordingSource: String, Sendable {
        case pastPlayer = "past_player"
        case house

        /// The opponent's name in the game's records: which, never who.
        var opponentName: String { self == .house ? "The house" : "A past player" }
    }

    /// Starts a recorded game of `bank` for `player` in one transaction, refused as practice is
    /// (`already_queued`, `in_duel`, `in_room`, `unknown_bank`). The opponent replays another
    /// player's answers and timings from a finished game of the bank, on the same questions in
    /// the same order; the house's when there is none yet.
    public func startRecorded(
        player: PlayerID, bank slug: String, configuration: DuelConfiguration, nowMs: Int64, announce: Bool
    ) throws -> (update: DuelUpdate, source: RecordingSource) {
        try db.transaction { db in
            try RoomRepository(db).checkFree(player)
            guard let bank = try db.query("""
                SELECT id FROM banks b WHERE slug = \(slug) AND \(unsafeRaw: BankSummary.playable("b", by: player))
                """).first else { throw StoreError(.unknownBank) }
            let bankID = try bank.int("id")
            var source = RecordingSource.pastPlayer
            var game = try DuelRepository(db).pastRecording(bankID: bankID, player: player, count: configuration.questionCount)
            if game == nil {
                source = .house
                let questions = try QuizRepository(db).drawQuestionSets(
                    bankID: bankID, count: configuration.questionCount, sets: 1).first ?? []
                var random = SystemRandomNumberGenerator()
                game = (questions, HouseRecording.answers(
                    for: questions, answerWindowMs: configuration.answerWindowMs, using: &random))
            }
            guard let (questions, recording) = game, !questions.isEmpty else { throw StoreError(.bankEmpty) }
            let opponent = DuelPlayer(
                id: DuelPlayer.recordedID, username: source.opponentName, rating: .newPlayer, recording: recording)
            let update = try DuelRepository(db).createGames(
                bankID: bankID, games: [[player]], mode: .recorded, configuration: configuration, nowMs: nowMs,
                questionSets: [questions], opponent: opponent, announce: { _ in announce })[0].update
            return (update, source)
        }
    }

    /// Another player's answers in one of the bank's last 50 completed games of `count`
    /// questions, chosen at random, with those questions in order; nil when there is none (or
    /// every one has a question since deactivated).
    func pastRecording(bankID: Int, player: PlayerID, count: Int) throws -> ([DuelQuestion], [RecordedAnswer])? {
        let candidates = try db.query("""
            SELECT d.id::text AS duel, a.player_id::text AS player
              FROM duels d JOIN duel_answers a ON a.duel_id = d.id
             WHERE d.bank_id = \(bankID) AND d.state = 'finished' AND d.finish_reason = 'completed'
               AND d.questions_opened = \(count) AND a.player_id <> \(player)::uuid
             GROUP BY d.id, a.player_id
             ORDER BY max(d.finished_at) DESC LIMIT 50
            """).shuffled()
        for candidate in candidates.prefix(5) {
            let duel = try candidate.string("duel"), author = try candidate.string("player")
            let rows = try db.query("""
                SELECT q.active, \(unsafeRaw: DuelQuestion.columns("q"))
                  FROM duel_questions dq JOIN questions q ON q.id = dq.question_id
                 WHERE dq.duel_id = \(duel)::uuid ORDER BY dq.question_index
                """)
            guard rows.count == count, try rows.allSatisfy({ try $0.bool("active") }) else { continue }
            let answers = try db.query("""
                SELECT question_index, choice, choices, answer_text, answer_number, elapsed_ms FROM duel_answers
                 WHERE duel_id = \(duel)::uuid AND player_id = \(author)::uuid ORDER BY question_index
                """).compactMap { row -> RecordedAnswer? in
                guard let submission = try row.submission() else { return nil }
                return RecordedAnswer(questionIndex: try row.int("question_index"), submission: submission,
                                      afterMs: try row.int64("elapsed_ms"))
            }
            return (try rows.map(DuelQuestion.init(row:)), answers)
        }
        return nil
    }
}
