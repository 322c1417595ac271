import DuelCore
import Foundation

extension PGConnection {
    /// Creates a duel between two players with freshly drawn questions and stores its `init` event.
    /// Runs inside the caller's transaction.
    func createDuel(bankID: Int, players ids: [PlayerID], configuration: DuelConfiguration, nowMs: Int64) throws -> DuelUpdate {
        guard let bank = try query("SELECT slug FROM banks WHERE id = \(bankID)").first else {
            throw StoreError(.unknownBank)
        }
        var players: [DuelPlayer] = []
        for id in ids {
            let row = try query("""
                SELECT p.username, coalesce(r.rating, 1500) AS rating, coalesce(r.deviation, 350) AS deviation,
                       coalesce(r.volatility, 0.06) AS volatility
                  FROM players p LEFT JOIN ratings r ON r.player_id = p.id AND r.bank_id = \(bankID)
                 WHERE p.id = \(id)::uuid
                """)[0]
            players.append(DuelPlayer(
                id: id, username: try row.string("username"),
                rating: GlickoRating(
                    rating: try row.double("rating"), deviation: try row.double("deviation"),
                    volatility: try row.double("volatility"))))
        }
        let questions = try drawQuestions(bankID: bankID, count: configuration.questionCount)
        let id = UUID().uuidString.lowercased()
        guard let (duel, step) = Duel.start(
            id: id, bank: try bank.string("slug"), players: players, questions: questions,
            configuration: configuration, nowMs: nowMs)
        else { throw StoreError(.bankEmpty) }
        try query("""
            INSERT INTO duels (id, bank_id, player_a, player_b, state, engine, last_seq, next_deadline_ms)
            VALUES (\(id)::uuid, \(bankID), \(ids[0])::uuid, \(ids[1])::uuid, \(duel.phase.rawValue),
                    \(try DuelCoding.encode(duel))::jsonb, \(duel.seq), \(duel.nextDeadlineMs))
            """)
        for (index, question) in duel.questions.enumerated() {
            try query("INSERT INTO duel_questions (duel_id, question_index, question_id) VALUES (\(id)::uuid, \(index), \(question.id))")
        }
        for player in ids {
            try query("INSERT INTO live_duel_players (player_id, duel_id) VALUES (\(player)::uuid, \(id)::uuid)")
        }
        return try storeStep(duel: duel, previous: nil, step: step)
    }

    /// Applies one engine input to a duel under its row lock, in one transaction:
    /// loads the state, runs `input`, stores the new state, new answers, events,
    /// and on completion both ratings; then announces the events with NOTIFY.
    ///
    /// Two instances applying inputs to one duel serialize on the row lock, so
    /// exactly one of two racing answers is first. Returns nil for an unknown duel.
    public func updateDuel(id: String, _ input: @escaping (inout Duel) -> DuelStep) throws -> DuelUpdate? {
        guard UUIDText.isValid(id) else { return nil }
        return try transaction { connection in
            guard let row = try connection.query("SELECT engine FROM duels WHERE id = \(id)::uuid FOR UPDATE").first else {
                return nil
            }
            let before = try DuelCoding.decode(try row.string("engine"))
            var duel = before
            let step = input(&duel)
            return try connection.storeStep(duel: duel, previous: before, step: step)
        }
    }

    /// Writes what one step changed. Nothing is written for a step that changed nothing.
    private func storeStep(duel: Duel, previous: Duel?, step: DuelStep) throws -> DuelUpdate {
        if let previous, step.changedState {
            try query("""
                UPDATE duels SET state = \(duel.phase.rawValue), engine = \(try DuelCoding.encode(duel))::jsonb,
                       last_seq = \(duel.seq), next_deadline_ms = \(duel.nextDeadlineMs),
                       finished_at = CASE WHEN \(duel.phase == .finished) THEN now() END,
                       winner = \(duel.result?.winner)::uuid, finish_reason = \(duel.result?.reason.rawValue)
                 WHERE id = \(duel.id)::uuid
                """)
            try storeNewAnswers(duel: duel, previous: previous)
        }
        let events = step.events.map { event in
            StoredEvent(duelID: duel.id, seq: event.seq, kind: event.kind, atMs: event.atMs, recordJSON: event.record.json.serialized)
        }
        for event in events {
            try query("""
                INSERT INTO duel_events (duel_id, seq, kind, at_ms, record)
                VALUES (\(duel.id)::uuid, \(event.seq), \(event.kind.rawValue), \(event.atMs), \(event.recordJSON)::json)
                """)
        }
        if let result = step.completion {
            try storeCompletion(duel: duel, result: result)
        }
        if let first = events.first, let last = events.last {
            try query("SELECT pg_notify('duel_events', \("\(duel.id) \(first.seq) \(last.seq) \(notificationOrigin)"))")
        }
        return DuelUpdate(
            duelID: duel.id, seq: duel.seq, players: duel.players.map(\.id), outcome: step.outcome, events: events,
            nextDeadlineMs: duel.nextDeadlineMs, finished: duel.phase == .finished)
    }

    private func storeNewAnswers(duel: Duel, previous: Duel) throws {
        for round in duel.rounds {
            let known = previous.rounds.indices.contains(round.questionIndex)
                ? previous.rounds[round.questionIndex].answers.count : 0
            for answer in round.answers.dropFirst(known) {
                try query("""
                    INSERT INTO duel_answers (duel_id, question_index, player_id, choice, correct, points, elapsed_ms, answered_at)
                    VALUES (\(duel.id)::uuid, \(round.questionIndex), \(answer.player)::uuid, \(answer.choice),
                            \(answer.correct), \(answer.points), \(max(0, answer.atMs - round.opensAtMs)),
                            to_timestamp(\(Double(answer.atMs) / 1000)))
                    """)
            }
        }
    }

    /// Rule 9: both ratings, once. rating_history's primary key (duel, player)
    /// makes a second attempt fail the whole transaction instead of rating twice.
    private func storeCompletion(duel: Duel, result: DuelResult) throws {
        let bankID = try query("SELECT bank_id FROM duels WHERE id = \(duel.id)::uuid")[0].int("bank_id")
        for outcome in result.outcomes {
            let after = outcome.rating.after
            let before = outcome.rating.before
            try query("""
                INSERT INTO rating_history (duel_id, player_id, bank_id, outcome, score, rating_before, rating_after,
                                            deviation_before, deviation_after, volatility_before, volatility_after)
                VALUES (\(duel.id)::uuid, \(outcome.player)::uuid, \(bankID), \(outcome.outcome.rawValue), \(outcome.score),
                        \(before.rating), \(after.rating), \(before.deviation), \(after.deviation),
                        \(before.volatility), \(after.volatility))
                """)
            try query("""
                INSERT INTO ratings AS r (player_id, bank_id, rating, deviation, volatility, games, wins, losses, draws, total_score)
                VALUES (\(outcome.player)::uuid, \(bankID), \(after.rating), \(after.deviation), \(after.volatility), 1,
                        \(outcome.outcome == .win ? 1 : 0), \(outcome.outcome == .loss ? 1 : 0),
                        \(outcome.outcome == .draw ? 1 : 0), \(outcome.score))
                ON CONFLICT (player_id, bank_id) DO UPDATE
                   SET rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility,
                       games = r.games + 1, wins = r.wins + excluded.wins, losses = r.losses + excluded.losses,
                       draws = r.draws + excluded.draws, total_score = r.total_score + excluded.total_score,
                       updated_at = now()
                """)
        }
        try query("DELETE FROM live_duel_players WHERE duel_id = \(duel.id)::uuid")
    }

    /// The stored events of a duel with `seq > afterSeq`, in order.
    public func events(duel id: String, afterSeq: Int, upToSeq: Int = Int(Int32.max)) throws -> [StoredEvent] {
        guard UUIDText.isValid(id) else { return [] }
        return try query("""
            SELECT seq, kind, at_ms, record::text AS record FROM duel_events
             WHERE duel_id = \(id)::uuid AND seq > \(afterSeq) AND seq <= \(upToSeq) ORDER BY seq
            """).map { row in
            StoredEvent(
                duelID: id, seq: try row.int("seq"), kind: DuelEventKind(rawValue: try row.string("kind")) ?? .answered,
                atMs: try row.int64("at_ms"), recordJSON: try row.string("record"))
        }
    }

    /// The two players of a duel, or nil for an unknown duel.
    public func duelPlayers(id: String) throws -> [PlayerID]? {
        guard UUIDText.isValid(id) else { return nil }
        return try query("SELECT player_a::text AS a, player_b::text AS b FROM duels WHERE id = \(id)::uuid")
            .first.map { [try $0.string("a"), try $0.string("b")] }
    }

    /// The live duel of a player and its latest event, if the player is in one.
    public func liveDuel(player: PlayerID) throws -> StoredEvent? {
        guard let row = try query("""
            SELECT d.id::text AS id, d.last_seq FROM live_duel_players l JOIN duels d ON d.id = l.duel_id
             WHERE l.player_id = \(player)::uuid
            """).first else { return nil }
        let id = try row.string("id")
        let last = try row.int("last_seq")
        return try events(duel: id, afterSeq: last - 1).last
    }

    /// Live duels whose next deadline is at or before `nowMs`: the sweep's work list.
    public func dueDuels(nowMs: Int64, limit: Int = 200) throws -> [String] {
        try query("""
            SELECT id::text AS id FROM duels
             WHERE state <> 'finished' AND next_deadline_ms <= \(nowMs)
             ORDER BY next_deadline_ms LIMIT \(limit)
            """).map { try $0.string("id") }
    }

    /// Live duels with their next deadline (to rebuild timers after a restart).
    public func liveDuelDeadlines() throws -> [(id: String, deadlineMs: Int64)] {
        try query("SELECT id::text AS id, next_deadline_ms FROM duels WHERE state <> 'finished'").map {
            (try $0.string("id"), try $0.int64("next_deadline_ms"))
        }
    }
}

/// The engine state as stored in `duels.engine`.
enum DuelCoding {
    static func encode(_ duel: Duel) throws -> String {
        String(decoding: try JSONEncoder().encode(duel), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> Duel {
        try JSONDecoder().decode(Duel.self, from: Data(text.utf8))
    }
}
