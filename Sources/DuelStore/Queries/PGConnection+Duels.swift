import DuelCore
import Foundation
import Synchronization

extension PGConnection {
    /// Creates a duel between two players with freshly drawn questions and stores its `init` event.
    /// Runs inside the caller's transaction.
    func createDuel(bankID: Int, players ids: [PlayerID], configuration: DuelConfiguration, nowMs: Int64) throws -> DuelUpdate {
        guard let bank = try query("SELECT slug FROM banks WHERE id = \(bankID)").first else {
            throw StoreError(.unknownBank)
        }
        // Both players' pre-duel ratings in this bank, in the order given.
        let rows = try query("""
            SELECT p.id::text AS id, p.username, coalesce(r.rating, 1500) AS rating,
                   coalesce(r.deviation, 350) AS deviation, coalesce(r.volatility, 0.06) AS volatility
              FROM players p LEFT JOIN ratings r ON r.player_id = p.id AND r.bank_id = \(bankID)
             WHERE p.id = ANY(\(PGArray(ids))::uuid[])
            """)
        let players = try ids.map { id -> DuelPlayer in
            guard let row = try rows.first(where: { try $0.string("id") == id }) else { throw StoreError(.badRequest, "unknown player") }
            return DuelPlayer(
                id: id, username: try row.string("username"),
                rating: GlickoRating(
                    rating: try row.double("rating"), deviation: try row.double("deviation"),
                    volatility: try row.double("volatility")))
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
                    \(try DuelCoding.encode(duel, cache: true))::json, \(duel.seq), \(duel.nextDeadlineMs))
            """)
        try query("""
            WITH questions AS (
                INSERT INTO duel_questions (duel_id, question_index, question_id)
                SELECT \(id)::uuid, q.ordinality - 1, q.question_id
                  FROM unnest(\(PGArray(duel.questions.map(\.id)))::bigint[]) WITH ORDINALITY AS q(question_id, ordinality)
                RETURNING 1)
            INSERT INTO live_duel_players (player_id, duel_id)
            SELECT player::uuid, \(id)::uuid FROM unnest(\(PGArray(ids))::text[]) AS player
            """)
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
            let before = try DuelCoding.decode(try row.string("engine"), id: id)
            var duel = before
            let step = input(&duel)
            return try connection.storeStep(duel: duel, previous: before, step: step)
        }
    }

    /// Writes what one step changed: the state, new answers, the events and their
    /// NOTIFY in one statement (one round trip on the hot path), then, when the
    /// duel finished, the ratings. Nothing is written for a step that changed nothing.
    private func storeStep(duel: Duel, previous: Duel?, step: DuelStep) throws -> DuelUpdate {
        let events = step.events.map { event in
            StoredEvent(duelID: duel.id, seq: event.seq, kind: event.kind, atMs: event.atMs, recordJSON: event.record.json.serialized)
        }
        let updateState = previous != nil && step.changedState
        let answers = previous.map { newAnswers(duel: duel, previous: $0) } ?? []
        if updateState || !events.isEmpty {
            let payload = events.isEmpty ? "" : "\(duel.id) \(events.first!.seq) \(events.last!.seq) \(notificationOrigin)"
            try query("""
                WITH updated AS (
                    UPDATE duels SET state = \(duel.phase.rawValue), engine = \(updateState ? try DuelCoding.encode(duel, cache: true) : "{}")::json,
                           last_seq = \(duel.seq), next_deadline_ms = \(duel.nextDeadlineMs),
                           finished_at = CASE WHEN \(duel.phase == .finished) THEN now() END,
                           winner = \(duel.result?.winner)::uuid, finish_reason = \(duel.result?.reason.rawValue)
                     WHERE id = \(duel.id)::uuid AND \(updateState)
                    RETURNING 1),
                answers AS (
                    INSERT INTO duel_answers (duel_id, question_index, player_id, choice, correct, points, elapsed_ms, answered_at)
                    SELECT \(duel.id)::uuid, a.question_index, a.player::uuid, a.choice, a.correct, a.points, a.elapsed_ms,
                           to_timestamp(a.at_ms / 1000.0)
                      FROM unnest(\(PGArray(answers.map { Int64($0.round.questionIndex) }))::int[],
                                  \(PGArray(answers.map { $0.answer.player }))::text[],
                                  \(PGArray(answers.map { Int64($0.answer.choice) }))::int[],
                                  \(PGArray(answers.map { $0.answer.correct ? "t" : "f" }))::boolean[],
                                  \(PGArray(answers.map { Int64($0.answer.points) }))::int[],
                                  \(PGArray(answers.map { max(0, $0.answer.atMs - $0.round.opensAtMs) }))::int[],
                                  \(PGArray(answers.map { $0.answer.atMs }))::bigint[])
                           AS a(question_index, player, choice, correct, points, elapsed_ms, at_ms)
                    RETURNING 1),
                events AS (
                    INSERT INTO duel_events (duel_id, seq, kind, at_ms, record)
                    SELECT \(duel.id)::uuid, e.seq, e.kind, e.at_ms, e.record::json
                      FROM unnest(\(PGArray(events.map { Int64($0.seq) }))::int[],
                                  \(PGArray(events.map { $0.kind.rawValue }))::text[],
                                  \(PGArray(events.map { $0.atMs }))::bigint[],
                                  \(PGArray(events.map { $0.recordJSON }))::text[])
                           AS e(seq, kind, at_ms, record)
                    RETURNING 1)
                SELECT CASE WHEN \(payload) <> '' THEN pg_notify('duel_events', \(payload)) END AS notified,
                       (SELECT count(*) FROM updated) + (SELECT count(*) FROM answers) + (SELECT count(*) FROM events) AS written
                """)
        }
        if let result = step.completion {
            try storeCompletion(duel: duel, result: result)
        }
        return DuelUpdate(
            duelID: duel.id, seq: duel.seq, players: duel.players.map(\.id), outcome: step.outcome, events: events,
            nextDeadlineMs: duel.nextDeadlineMs, finished: duel.phase == .finished)
    }

    /// Answers in `duel` that `previous` did not have yet, with their rounds.
    private func newAnswers(duel: Duel, previous: Duel) -> [(round: DuelRound, answer: DuelAnswer)] {
        duel.rounds.flatMap { round -> [(round: DuelRound, answer: DuelAnswer)] in
            let known = previous.rounds.indices.contains(round.questionIndex)
                ? previous.rounds[round.questionIndex].answers.count : 0
            return round.answers.dropFirst(known).map { (round, $0) }
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

/// The engine state as stored in `duels.engine` (a `json` column, so Postgres
/// returns exactly the text the server wrote).
///
/// Decoding the state was a quarter of the server's CPU under load (perf), so
/// the last state written per duel is kept decoded: when the text read under
/// the row lock is the text this process wrote, the decoded value is reused.
/// The text comparison makes the cache safe with many instances: a state
/// written elsewhere differs and is decoded.
enum DuelCoding {
    private static let cache = Mutex<[String: (text: String, duel: Duel)]>([:])
    private static let cacheLimit = 50_000

    static func encode(_ duel: Duel, cache remember: Bool = false) throws -> String {
        let text = String(decoding: try JSONEncoder().encode(duel), as: UTF8.self)
        if remember {
            cache.withLock { cache in
                if duel.phase == .finished {
                    cache[duel.id] = nil
                } else {
                    if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
                    cache[duel.id] = (text, duel)
                }
            }
        }
        return text
    }

    static func decode(_ text: String, id: String? = nil) throws -> Duel {
        if let id, let hit = cache.withLock({ $0[id] }), hit.text == text { return hit.duel }
        return try JSONDecoder().decode(Duel.self, from: Data(text.utf8))
    }
}
