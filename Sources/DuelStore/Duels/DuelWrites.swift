import DuelCore

/// Everything a batch of steps writes, gathered into columns so that each table
/// gets one multi-row statement (`unnest` of arrays) however many duels the batch
/// touched. Only the steps' own lists go in: nothing here looks at engine state.
struct DuelWrites {
    // duels: one row per duel, its state after the batch's last step.
    private var rowIndex: [String: Int] = [:]
    private var rowIDs: [String?] = [], rowStates: [String?] = [], rowSeqs: [String?] = []
    private var rowDeadlines: [String?] = [], rowInputs: [String?] = [], rowOpened: [String?] = []
    private var rowWinners: [String?] = [], rowReasons: [String?] = []
    // duel_inputs
    private var inputDuels: [String?] = [], inputNs: [String?] = [], inputKinds: [String?] = []
    private var inputPlayers: [String?] = [], inputQuestions: [String?] = [], inputAnswers = AnswerColumns()
    private var inputAts: [String?] = []
    // duel_answers
    private var answerDuels: [String?] = [], answerQuestions: [String?] = [], answerPlayers: [String?] = []
    private var answerSubmissions = AnswerColumns(), answerCorrect: [String?] = [], answerPoints: [String?] = []
    private var answerElapsed: [String?] = [], answerAts: [String?] = []
    // duel_events
    private var eventDuels: [String?] = [], eventSeqs: [String?] = [], eventKinds: [String?] = []
    private var eventAts: [String?] = [], eventRecords: [String?] = []
    private var finished: [String?] = []
    /// Practice games the batch finished: their correct answers count towards learning.
    private var practiceFinished: [String?] = []
    /// Room games the batch finished: their rooms are open again, and members hear it.
    private var roomFinished: [String?] = []
    /// Players who left a game that plays on: their live markers go (duel, player).
    private var leftDuels: [String?] = [], leftPlayers: [String?] = []
    /// Finished games' facts, one row per player (issue 14): progress to grant once.
    private var progress = ProgressColumns()
    private var ranges: [DuelNotification.Range] = []
    private var rangeIndex: [String: Int] = [:]
    /// Duels the batch finished, with their bank: the ratings to write once.
    private(set) var completions: [(duelID: String, bankID: Int, result: DuelResult)] = []

    var isEmpty: Bool { rowIDs.isEmpty && eventDuels.isEmpty }

    /// Adds one step's writes; `version` is the duel's input count after it.
    /// Returns the step's events as stored (the record serialized once, here).
    /// `mode`: the duel's; a finished practice game counts towards learning. (Whether a result
    /// writes ratings is the engine's decision: ``DuelResult/isRated``.)
    mutating func add(
        _ step: DuelStep, duelID: String, bankID: Int, input: DuelInput, version: Int, mode: DuelMode = .ranked,
        announce: Bool = true
    ) -> [StoredEvent] {
        guard step.logsInput, let row = step.row else { return [] }
        logInput(input, duelID: duelID, n: version)
        setRow(row, duelID: duelID, version: version)
        for new in step.newAnswers {
            answerDuels.append(duelID)
            answerQuestions.append(String(new.questionIndex))
            answerPlayers.append(new.answer.player)
            answerSubmissions.append(new.answer.submission)
            answerCorrect.append(new.answer.correct ? "t" : "f")
            answerPoints.append(String(new.answer.points))
            answerElapsed.append(String(new.elapsedMs))
            answerAts.append(String(new.answer.atMs))
        }
        let events = add(step.events, duelID: duelID, announce: announce)
        for player in step.leftPlayers {
            leftDuels.append(duelID)
            leftPlayers.append(player)
        }
        if let result = step.completion {
            // An operator-ended duel is unrated: no rating rows, no statistics.
            if result.isRated { completions.append((duelID, bankID, result)) }
            for facts in step.facts {
                progress.append(facts, duelID: duelID, bankID: bankID, mode: mode, finishedAtMs: result.finishedAtMs)
            }
            if mode == .practice { practiceFinished.append(duelID) }
            if mode == .room { roomFinished.append(duelID) }
            finished.append(duelID)
        }
        return events
    }

    /// Adds a new duel's start: its events (the row itself is inserted by the caller).
    /// `players` go into the announcement of a new duel (see ``DuelNotification``).
    mutating func add(_ events: [DuelEvent], duelID: String, players: [String] = [], announce: Bool = true) -> [StoredEvent] {
        let stored = events.map { event in
            StoredEvent(duelID: duelID, seq: event.seq, kind: event.kind, atMs: event.atMs,
                        recordJSON: event.record.json.serialized)
        }
        for event in stored {
            eventDuels.append(duelID)
            eventSeqs.append(String(event.seq))
            eventKinds.append(event.kind.rawValue)
            eventAts.append(String(event.atMs))
            eventRecords.append(event.recordJSON)
        }
        if announce, let first = stored.first, let last = stored.last {
            if let index = rangeIndex[duelID] {
                ranges[index] = .init(duelID: duelID, firstSeq: ranges[index].firstSeq, lastSeq: last.seq,
                                      players: ranges[index].players)
            } else {
                rangeIndex[duelID] = ranges.count
                ranges.append(.init(duelID: duelID, firstSeq: first.seq, lastSeq: last.seq, players: players))
            }
        }
        return stored
    }

    private mutating func logInput(_ input: DuelInput, duelID: String, n: Int) {
        inputDuels.append(duelID)
        inputNs.append(String(n))
        inputKinds.append(input.kind.rawValue)
        inputPlayers.append(input.player)
        inputAts.append(String(input.atMs))
        if case .answer(_, let index, let submission, _) = input {
            inputQuestions.append(String(index))
            inputAnswers.append(submission)
        } else {
            inputQuestions.append(nil)
            inputAnswers.append(nil)
        }
    }

    private mutating func setRow(_ row: DuelStep.Row, duelID: String, version: Int) {
        let index: Int
        if let existing = rowIndex[duelID] {
            index = existing
        } else {
            index = rowIDs.count
            rowIndex[duelID] = index
            rowIDs.append(duelID)
            rowStates.append(nil); rowSeqs.append(nil); rowDeadlines.append(nil); rowInputs.append(nil)
            rowOpened.append(nil); rowWinners.append(nil); rowReasons.append(nil)
        }
        rowStates[index] = row.phase.rawValue
        rowSeqs[index] = String(row.lastSeq)
        rowDeadlines[index] = row.nextDeadlineMs.map { String($0) }
        rowInputs[index] = String(version)
        rowOpened[index] = String(row.questionsOpened)
        rowWinners[index] = row.result?.winner
        rowReasons[index] = row.result?.reason.rawValue
    }

    /// Writes everything in one statement (plus one for the batch's ratings and one for
    /// finished practice games) inside the caller's transaction, and announces the events.
    /// Returns the `player_events` payloads of the notifications the batch's completions
    /// granted, for the server to deliver (they are not announced here: see ProgressColumns).
    @discardableResult
    func write(on connection: PGConnection) throws -> [String] {
        guard !isEmpty else { return [] }
        let payloads = connection.announcesDuelEvents
            ? DuelNotification.payloads(origin: connection.notificationOrigin, ranges: ranges) : []
        try connection.query("""
            WITH updated AS (
                UPDATE duels d
                   SET state = u.state, last_seq = u.last_seq, next_deadline_ms = u.next_deadline_ms,
                       inputs = u.inputs, questions_opened = u.questions_opened,
                       finished_at = CASE WHEN u.state = 'finished' THEN now() END,
                       winner = u.winner::uuid, finish_reason = u.finish_reason
                  FROM unnest(\(PGArray(rowIDs))::uuid[], \(PGArray(rowStates))::text[], \(PGArray(rowSeqs))::int[],
                              \(PGArray(rowDeadlines))::bigint[], \(PGArray(rowInputs))::int[],
                              \(PGArray(rowOpened))::int[], \(PGArray(rowWinners))::text[], \(PGArray(rowReasons))::text[])
                       AS u(id, state, last_seq, next_deadline_ms, inputs, questions_opened, winner, finish_reason)
                 WHERE d.id = u.id
                RETURNING 1),
            logged AS (
                INSERT INTO duel_inputs (duel_id, n, kind, player_id, question_index, choice, at_ms,
                                         choices, answer_text, answer_number)
                SELECT i.duel_id, i.n, i.kind, i.player_id, i.question_index, i.choice, i.at_ms,
                       i.choices::int[], i.answer_text, i.answer_number
                  FROM unnest(\(PGArray(inputDuels))::uuid[], \(PGArray(inputNs))::int[], \(PGArray(inputKinds))::text[],
                              \(PGArray(inputPlayers))::uuid[], \(PGArray(inputQuestions))::int[],
                              \(PGArray(inputAnswers.choice))::int[], \(PGArray(inputAts))::bigint[],
                              \(PGArray(inputAnswers.choices))::text[], \(PGArray(inputAnswers.text))::text[],
                              \(PGArray(inputAnswers.number))::float8[])
                       AS i(duel_id, n, kind, player_id, question_index, choice, at_ms, choices, answer_text,
                            answer_number)
                RETURNING 1),
            answers AS (
                INSERT INTO duel_answers (duel_id, question_index, player_id, choice, correct, points, elapsed_ms, answered_at,
                                          choices, answer_text, answer_number)
                SELECT a.duel_id, a.question_index, a.player_id, a.choice, a.correct, a.points, a.elapsed_ms,
                       to_timestamp(a.at_ms / 1000.0), a.choices::int[], a.answer_text, a.answer_number
                  FROM unnest(\(PGArray(answerDuels))::uuid[], \(PGArray(answerQuestions))::int[],
                              \(PGArray(answerPlayers))::uuid[], \(PGArray(answerSubmissions.choice))::int[],
                              \(PGArray(answerCorrect))::boolean[], \(PGArray(answerPoints))::int[],
                              \(PGArray(answerElapsed))::int[], \(PGArray(answerAts))::bigint[],
                              \(PGArray(answerSubmissions.choices))::text[], \(PGArray(answerSubmissions.text))::text[],
                              \(PGArray(answerSubmissions.number))::float8[])
                       AS a(duel_id, question_index, player_id, choice, correct, points, elapsed_ms, at_ms, choices,
                            answer_text, answer_number)
                RETURNING 1),
            events AS (
                INSERT INTO duel_events (duel_id, seq, kind, at_ms, record)
                SELECT e.duel_id, e.seq, e.kind, e.at_ms, e.record::json
                  FROM unnest(\(PGArray(eventDuels))::uuid[], \(PGArray(eventSeqs))::int[], \(PGArray(eventKinds))::text[],
                              \(PGArray(eventAts))::bigint[], \(PGArray(eventRecords))::text[])
                       AS e(duel_id, seq, kind, at_ms, record)
                RETURNING 1),
            left_live AS (
                DELETE FROM live_duel_players WHERE duel_id = ANY(\(PGArray(finished))::uuid[])
                RETURNING 1)
            SELECT pg_notify('duel_events', p) FROM unnest(\(PGArray(payloads))::text[]) AS p
            """)
        try connection.storeRatings(completions)
        if !practiceFinished.isEmpty { try connection.countPractice(duels: practiceFinished) }
        // After ratings (giant slayer reads them) and practice (learned mistakes count).
        let notifications = progress.isEmpty ? [] : try progress.write(on: connection)
        if !leftPlayers.isEmpty {
            try connection.query("""
                DELETE FROM live_duel_players l
                 USING unnest(\(PGArray(leftPlayers))::uuid[], \(PGArray(leftDuels))::uuid[]) AS g(player, duel)
                 WHERE l.player_id = g.player AND l.duel_id = g.duel
                """)
        }
        if !roomFinished.isEmpty { try connection.announceRooms(ofGames: roomFinished) }
        return notifications
    }
}

extension PGConnection {
    /// Rule 9: both ratings, once. rating_history's primary key (duel, player)
    /// makes a second attempt fail the transaction instead of rating twice.
    /// One statement for every duel of the batch (a statement per finished duel was 6 % of
    /// Postgres's time at full load). A player in two of its duels (which live-duel bookkeeping
    /// rules out) would trip ON CONFLICT's one-update-per-row rule; the batch would then fail
    /// and ``PGConnection/applyInputs(_:)`` retry each duel alone, as for any failing write.
    func storeRatings(_ completions: [(duelID: String, bankID: Int, result: DuelResult)]) throws {
        guard !completions.isEmpty else { return }
        let rows = completions.flatMap { completion in
            completion.result.outcomes.map { (duel: completion.duelID, bank: completion.bankID, outcome: $0) }
        }
        let column = { (value: ((duel: String, bank: Int, outcome: PlayerOutcome)) -> String) in
            PGArray(rows.map { Optional(value($0)) })
        }
        try query("""
            WITH history AS (
                INSERT INTO rating_history (duel_id, player_id, bank_id, outcome, score, rating_before, rating_after,
                                            deviation_before, deviation_after, volatility_before, volatility_after)
                SELECT o.duel, o.player, o.bank, o.outcome, o.score, o.rb, o.ra, o.db, o.da, o.vb, o.va
                  FROM unnest(\(column { $0.duel })::uuid[], \(column { String($0.bank) })::int[],
                              \(column { $0.outcome.player })::uuid[], \(column { $0.outcome.outcome.rawValue })::text[],
                              \(column { String($0.outcome.score) })::int[],
                              \(column { String($0.outcome.rating.before.rating) })::float8[],
                              \(column { String($0.outcome.rating.after.rating) })::float8[],
                              \(column { String($0.outcome.rating.before.deviation) })::float8[],
                              \(column { String($0.outcome.rating.after.deviation) })::float8[],
                              \(column { String($0.outcome.rating.before.volatility) })::float8[],
                              \(column { String($0.outcome.rating.after.volatility) })::float8[])
                       AS o(duel, bank, player, outcome, score, rb, ra, db, da, vb, va)
                RETURNING player_id, bank_id, outcome, score, rating_after, deviation_after, volatility_after)
            INSERT INTO ratings AS r (player_id, bank_id, rating, deviation, volatility, games, wins, losses, draws, total_score)
            SELECT h.player_id, h.bank_id, h.rating_after, h.deviation_after, h.volatility_after, 1,
                   (h.outcome = 'win')::int, (h.outcome = 'loss')::int, (h.outcome = 'draw')::int, h.score
              FROM history h
            ON CONFLICT (player_id, bank_id) DO UPDATE
               SET rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility,
                   games = r.games + 1, wins = r.wins + excluded.wins, losses = r.losses + excluded.losses,
                   draws = r.draws + excluded.draws, total_score = r.total_score + excluded.total_score,
                   updated_at = now()
            """)
    }

    /// A finished practice game's correct answers: each question counts once per game. The
    /// second game that counts since the player last missed the question (in a finished game
    /// against others) makes it learned; a miss after the count started starts it again.
    func countPractice(duels: [String?]) throws {
        try query("""
            WITH right_answers AS (
                SELECT a.player_id, dq.question_id, a.duel_id
                  FROM duel_answers a
                  JOIN duel_questions dq ON dq.duel_id = a.duel_id AND dq.question_index = a.question_index
                 WHERE a.duel_id = ANY(\(PGArray(duels))::uuid[]) AND a.correct),
            counted AS (
                SELECT r.*, p.correct_games, p.learned_at, p.last_duel,
                       p.player_id IS NOT NULL AND EXISTS (
                           SELECT 1 FROM missed_questions m
                            WHERE m.player_id = r.player_id AND m.question_id = r.question_id
                              AND m.finished_at > p.since) AS missed_since
                  FROM right_answers r
                  LEFT JOIN practice_progress p ON p.player_id = r.player_id AND p.question_id = r.question_id
                 WHERE p.last_duel IS DISTINCT FROM r.duel_id)
            INSERT INTO practice_progress AS p (player_id, question_id, correct_games, since, last_duel, learned_at)
            SELECT player_id, question_id,
                   CASE WHEN correct_games IS NULL OR missed_since THEN 1 ELSE correct_games + 1 END,
                   now(), duel_id,
                   CASE WHEN correct_games IS NOT NULL AND NOT missed_since THEN coalesce(learned_at, now()) END
              FROM counted
            ON CONFLICT (player_id, question_id) DO UPDATE
               SET correct_games = excluded.correct_games, last_duel = excluded.last_duel,
                   learned_at = excluded.learned_at,
                   since = CASE WHEN excluded.correct_games = 1 THEN now() ELSE p.since END
            """)
    }
}

/// Answers as four parallel columns, one set per answer (`choice`, `choices`, `answer_text`,
/// `answer_number`), as `duel_inputs` and `duel_answers` store them. `choices` goes as the
/// text of a Postgres array (`{0,2}`), cast by the statement: unnest cannot take a 2-D array
/// of uneven rows.
struct AnswerColumns {
    private(set) var choice: [String?] = [], choices: [String?] = [], text: [String?] = [], number: [String?] = []

    mutating func append(_ submission: Submission?) {
        var row: (String?, String?, String?, String?) = (nil, nil, nil, nil)
        switch submission {
        case .choice(let value)?: row.0 = String(value)
        case .choices(let values)?: row.1 = "{" + values.map(String.init).joined(separator: ",") + "}"
        case .text(let value)?: row.2 = value
        case .number(let value)?: row.3 = String(value)
        case nil: break
        }
        choice.append(row.0); choices.append(row.1); text.append(row.2); number.append(row.3)
    }
}

/// Finished games' facts as parallel columns for `record_progress` (migration 017), which grants
/// XP, streak days, goals, levels and achievements in the transaction that finishes the games,
/// and returns the notifications' payloads. It does not NOTIFY: a NOTIFY in the lanes'
/// transactions queued every commit on Postgres's notify lock (the two-instance throughput
/// fell to half, bench/NOTES.md item 22); the server delivers them itself.
struct ProgressColumns {
    private var duels: [String?] = [], players: [String?] = [], banks: [String?] = [], modes: [String?] = []
    private var finished: [String?] = [], correct: [String?] = [], questions: [String?] = []
    private var first: [String?] = [], won: [String?] = [], stayed: [String?] = [], seats: [String?] = []
    private var fastest: [String?] = [], answered: [String?] = [], rivals: [String?] = []

    var isEmpty: Bool { duels.isEmpty }

    mutating func append(_ facts: GameFacts, duelID: String, bankID: Int, mode: DuelMode, finishedAtMs: Int64) {
        duels.append(duelID); players.append(facts.player); banks.append(String(bankID)); modes.append(mode.rawValue)
        finished.append(String(finishedAtMs)); correct.append(String(facts.correct)); questions.append(String(facts.questions))
        first.append(facts.firstPlace ? "t" : "f"); won.append(facts.won ? "t" : "f"); stayed.append(facts.stayed ? "t" : "f")
        seats.append(String(facts.players)); fastest.append(facts.fastestCorrectMs.map { String($0) })
        answered.append(String(facts.answered)); rivals.append(String(facts.rivalsAtFirstQuestion))
    }

    func write(on connection: PGConnection) throws -> [String] {
        try connection.query("""
            SELECT p FROM record_progress(\(PGArray(duels))::uuid[], \(PGArray(players))::uuid[], \(PGArray(banks))::int[],
                                   \(PGArray(modes))::text[], \(PGArray(finished))::bigint[], \(PGArray(correct))::int[],
                                   \(PGArray(questions))::int[], \(PGArray(first))::boolean[], \(PGArray(won))::boolean[],
                                   \(PGArray(stayed))::boolean[], \(PGArray(seats))::int[], \(PGArray(fastest))::bigint[],
                                   \(PGArray(answered))::int[], \(PGArray(rivals))::int[]) AS p
            """).map { try $0.string("p") }
    }
}
