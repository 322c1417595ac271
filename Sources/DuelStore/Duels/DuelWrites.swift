import DuelCore

/// Everything a batch of steps writes, gathered into columns so that each table
/// gets one multi-row statement (`unnest` of arrays) however many duels the batch
/// touched. Only the steps' own lists go in: nothing here looks at engine state.
struct DuelWrites {
    /// duels: one row per duel, its state after the batch's last step, in first-touched order.
    var rows: [(duel: String, row: DuelStep.Row, version: Int)] = []
    private var rowIndex: [String: Int] = [:]
    /// duel_inputs: each logged input with its number in the duel's log.
    var inputs: [(duel: String, n: Int, input: DuelInput)] = []
    /// duel_answers.
    var answers: [(duel: String, new: DuelStep.NewAnswer)] = []
    /// duel_events: the rows to store (each record serialized once). A round stores a game's
    /// `complete` only (its history's final record), unless `storesEveryEvent`: readers derive
    /// the rest from the input log (``DuelRepository/derivedEvents(_:replays:)``). A start stores its own.
    var events: [StoredEvent] = []
    /// Whether a round stores every event it makes (`--store-every-event`: the test servers
    /// check each stored row against the log's replay, and an A/B can measure what rows cost).
    let storesEveryEvent: Bool
    /// What other instances are told (see ``DuelNotification``).
    private var announcements = Announcements()
    /// What the games the batch ended, or that players left, owe their players' rows.
    private(set) var settlements = DuelSettlements()
    /// Duels an input was judged on without a write, where a later state of the duel might have
    /// judged it otherwise (anything but a refusal that stands, ``DuelStep/refusalStands``): a
    /// round that guessed their states from a cache reads their versions to check the guess.
    private(set) var judgedUnwritten: Set<String> = []

    var isEmpty: Bool { rows.isEmpty && events.isEmpty }

    init(storesEveryEvent: Bool = false) {
        self.storesEveryEvent = storesEveryEvent
    }

    /// Adds one step's writes; `duel` is the duel's state after it and `version` its input
    /// count. Returns the step's events as stored (the record serialized once, here).
    mutating func add(
        _ step: DuelStep, duel: Duel, duelID: String, bankID: Int, input: DuelInput, version: Int, announce: Bool = true
    ) -> [StoredEvent] {
        guard step.logsInput, let row = step.row else {
            if !step.refusalStands { judgedUnwritten.insert(duelID) }
            return []
        }
        logInput(input, duelID: duelID, n: version)
        setRow(row, duelID: duelID, version: version)
        for new in step.newAnswers { answers.append((duelID, new)) }
        let events = add(step.events, duelID: duelID, announce: announce, storesAll: storesEveryEvent)
        if step.completion != nil || !step.leftPlayers.isEmpty {
            settlements.add(duel, duelID: duelID, bankID: bankID, version: version, announce: announce)
        }
        return events
    }

    /// Adds a new duel's start: its events (the row itself is inserted by the caller).
    /// `players` go into the announcement of a new duel (see ``DuelNotification``).
    /// `storesAll`: false for a round's events, of which only a `complete` is stored.
    mutating func add(
        _ events: [DuelEvent], duelID: String, players: [String] = [], announce: Bool = true, storesAll: Bool = true
    ) -> [StoredEvent] {
        let stored = events.map { event in
            StoredEvent(duelID: duelID, seq: event.seq, kind: event.kind, atMs: event.atMs,
                        recordJSON: event.record.serialized)
        }
        self.events += storesAll ? stored : stored.filter { $0.kind == .complete }
        if announce { announcements.add(stored, duelID: duelID, players: players) }
        return stored
    }

    private mutating func logInput(_ input: DuelInput, duelID: String, n: Int) {
        inputs.append((duelID, n, input))
    }

    private mutating func setRow(_ row: DuelStep.Row, duelID: String, version: Int) {
        if let index = rowIndex[duelID] {
            rows[index] = (duelID, row, version)
        } else {
            rowIndex[duelID] = rows.count
            rows.append((duelID, row, version))
        }
    }

    /// Writes everything in one statement inside the caller's transaction, and announces the
    /// events. What the batch's ended games owe their players (``DuelSettlements``) is written
    /// after it in the same transaction, or, `shardByShard` (on Citus), only recorded there, for
    /// the caller to settle after its commit. `progressApart` (plain Postgres with a progress
    /// settler): the games' progress is only recorded, for the lane's ``ProgressSettler``. The
    /// notifications the settlements granted and the
    /// rooms its room games reopened go into `outbox` (announced by the caller, last): a
    /// notification is announced only when `announces` (another instance runs) and its player's
    /// game was announced (or the player, a quiz's author, did not play). `now`: the
    /// transaction's `now()` as text, the finish time of games the batch finished. It is read by
    /// the caller's first statement and passed in, because Citus refuses a function call inside a
    /// CASE of a statement it sends to a shard. `shardByShard`: the same rows in statements
    /// Citus sends to the batch's one shard (``writeShardByShard(on:now:payloads:)``) instead of
    /// the one statement.
    ///
    /// Returns the announcements held back: on Citus, a round that ended games announces its
    /// events only once they are settled (``DuelRepository/settle(_:announces:outbox:payloads:)``),
    /// so that players held by other instances, too, hear of an end whose ratings are written.
    @discardableResult
    func write(on connection: PGConnection, now: String? = nil, announces: Bool = true,
               shardByShard: Bool = false, progressApart: Bool = false, outbox: Outbox = Outbox()) throws -> [String] {
        guard !isEmpty else { return [] }
        let payloads = payloads(for: connection, announces: announces)
        if shardByShard {
            let record = settlements.recordStatement()
            try writeShardByShard(on: connection, now: now, payloads: record == nil ? payloads : [])
            if let record { try connection.query(record) }
            return record == nil ? [] : payloads
        }
        try connection.query(statement(now: now, payloads: payloads))
        try settlements.write(on: connection, announces: announces, outbox: outbox,
                              scope: progressApart ? .allButProgress : .everything)
        return []
    }

    /// The NOTIFY of announcements' payloads, as a statement of its own.
    static func notifyStatement(_ payloads: [String]) -> SQLQuery {
        "SELECT pg_notify('duel_events', p) FROM unnest(\(PGBinaryArray.texts(payloads))::text[]) AS p"
    }

    /// Whether the whole write is statements that need nothing back from one another, so that one
    /// pipeline can carry them (``pipelined(payloads:)``).
    var fitsOnePipeline: Bool { settlements.fitsOnePipeline }

    /// Whether the batch writes `duel`'s row (it logged an input of it).
    func writesRow(of duel: String) -> Bool { rowIndex[duel] != nil }

    /// Whether finished games grant progress (whose notifications the caller may have to announce).
    var grantsProgress: Bool { settlements.grantsProgress }

    /// The write as the statements of one pipeline, in the order of
    /// ``write(on:now:announces:shardByShard:progressApart:outbox:)`` (for a batch that
    /// ``fitsOnePipeline``), and which of them returns the progress notifications. Games finish at
    /// the transaction's `now()`.
    func pipelined(payloads: [String], progressApart: Bool = false) -> (queries: [SQLQuery], progressAt: Int?) {
        var queries: [SQLQuery] = []
        // `'now'` as a timestamp's text is Postgres's own name for the transaction's start, the
        // `now()` the locking path reads first (a call to now() itself in the CASE would be
        // refused by Citus in the matcher's and the locking path's use of this statement).
        if !isEmpty { queries.append(statement(now: "now", payloads: payloads)) }
        let (settling, progressAt) = settlements.pipelined(scope: progressApart ? .allButProgress : .everything)
        return (queries + settling, progressAt.map { $0 + queries.count })
    }

    /// Puts the notifications that finished games granted into `outbox` (see
    /// ``DuelSettlements/addNotifications(_:announces:to:)``).
    func addNotifications(_ payloads: [String], announces: Bool, to outbox: Outbox) {
        settlements.addNotifications(payloads, announces: announces, to: outbox)
    }

    /// The announcements' payloads for `connection` (none unless `announces`).
    func payloads(for connection: PGConnection, announces: Bool) -> [String] {
        announces ? DuelNotification.payloads(origin: connection.notificationOrigin, ranges: announcements.ranges) : []
    }

    /// The one statement that writes the duel rows, logged inputs, answers and events and
    /// announces `payloads` (`now`: see ``write(on:now:announces:shardByShard:progressApart:outbox:)``).
    ///
    /// Every insert waits for the `UPDATE` (`locked`): Postgres runs the data-modifying CTEs a
    /// statement does not read from last one first, so the log rows went in before the duels
    /// were locked. Two instances' rounds on the same duels (both fire a deadline) then met on
    /// the log tables' keys in the order of their inputs, not of the duels' ids, and deadlocked
    /// (bench/NOTES.md, item 39; `WriteLockOrderTests`).
    func statement(now: String?, payloads: [String]) -> SQLQuery {
        let inputAnswers = AnswerColumns(inputs.map { item -> Submission? in
            if case .answer(_, _, let submission, _) = item.input { return submission }
            return nil
        })
        let answerSubmissions = AnswerColumns(answers.map { Optional($0.new.answer.submission) })
        // In id order, the order the UPDATE locks them in: a cached round takes no lock before it
        // (``DuelRepository/applyCachedRound(_:lane:outbox:)``), and two instances' rounds must
        // still lock shared duels in one order.
        let rows = rows.sorted { $0.duel < $1.duel }
        let duelIDs = PGBinaryArray.uuids(rows.map { $0.duel })
        return """
            WITH updated AS (
                UPDATE duels d
                   SET state = u.state, last_seq = u.last_seq, next_deadline_ms = u.next_deadline_ms,
                       inputs = u.inputs, questions_opened = u.questions_opened,
                       finished_at = CASE WHEN u.state = 'finished' THEN \(now)::timestamptz END,
                       winner = u.winner::uuid, finish_reason = u.finish_reason
                  FROM unnest(\(duelIDs)::uuid[], \(.texts(rows.map { $0.row.phase.rawValue }))::text[], \(.ints(rows.map { $0.row.lastSeq }))::int[],
                              \(.bigints(rows.map { $0.row.nextDeadlineMs }))::bigint[], \(.ints(rows.map { $0.version }))::int[],
                              \(.ints(rows.map { $0.row.questionsOpened }))::int[], \(.texts(rows.map { $0.row.result?.winnerAccount }))::text[],
                              \(.texts(rows.map { $0.row.result?.reason.rawValue }))::text[])
                       AS u(id, state, last_seq, next_deadline_ms, inputs, questions_opened, winner, finish_reason)
                 -- The ids again as a filter of `duels` itself: Citus finds the one shard a lane's
                 -- batch writes from it (through the join alone it would update every shard).
                 WHERE d.id = u.id AND d.id = ANY(\(duelIDs)::uuid[])
                RETURNING 1),
            locked AS (SELECT count(*) AS n FROM updated),
            logged AS (
                INSERT INTO duel_inputs (duel_id, n, kind, player_id, question_index, choice, at_ms,
                                         choices, answer_text, answer_number, lag_ms)
                SELECT i.duel_id, i.n, i.kind, i.player_id, i.question_index, i.choice, i.at_ms,
                       i.choices::int[], i.answer_text, i.answer_number, i.lag_ms
                  FROM unnest(\(.uuids(inputs.map { $0.duel }))::uuid[], \(.ints(inputs.map { $0.n }))::int[],
                              \(.texts(inputs.map { $0.input.kind.rawValue }))::text[], \(.uuids(inputs.map { $0.input.player }))::uuid[],
                              \(.ints(inputs.map { item -> Int? in
                                  if case .answer(_, let index, _, _) = item.input { return index }
                                  return nil
                              }))::int[],
                              \(.ints(inputAnswers.choice))::int[], \(.bigints(inputs.map { $0.input.atMs }))::bigint[],
                              \(.texts(inputAnswers.choices))::text[], \(.texts(inputAnswers.text))::text[],
                              \(.float8s(inputAnswers.number))::float8[], \(.ints(inputs.map { $0.input.lagMs.map { Int($0) } }))::int[])
                       AS i(duel_id, n, kind, player_id, question_index, choice, at_ms, choices, answer_text,
                            answer_number, lag_ms)
                 WHERE (SELECT n FROM locked) >= 0
                RETURNING 1),
            answers AS (
                INSERT INTO duel_answers (duel_id, question_index, player_id, choice, correct, points, elapsed_ms, answered_at,
                                          choices, answer_text, answer_number)
                SELECT a.duel_id, a.question_index, a.player_id, a.choice, a.correct, a.points, a.elapsed_ms,
                       to_timestamp(a.at_ms / 1000.0), a.choices::int[], a.answer_text, a.answer_number
                  FROM unnest(\(.uuids(answers.map { $0.duel }))::uuid[], \(.ints(answers.map { $0.new.questionIndex }))::int[],
                              \(.uuids(answers.map { $0.new.answer.player }))::uuid[], \(.ints(answerSubmissions.choice))::int[],
                              \(.booleans(answers.map { $0.new.answer.correct }))::boolean[], \(.ints(answers.map { $0.new.answer.points }))::int[],
                              \(.ints(answers.map { Int($0.new.elapsedMs) }))::int[], \(.bigints(answers.map { $0.new.answer.atMs }))::bigint[],
                              \(.texts(answerSubmissions.choices))::text[], \(.texts(answerSubmissions.text))::text[],
                              \(.float8s(answerSubmissions.number))::float8[])
                       AS a(duel_id, question_index, player_id, choice, correct, points, elapsed_ms, at_ms, choices,
                            answer_text, answer_number)
                 WHERE (SELECT n FROM locked) >= 0
                RETURNING 1),
            events AS (
                INSERT INTO duel_events (duel_id, seq, kind, at_ms, record)
                SELECT e.duel_id, e.seq, e.kind, e.at_ms, e.record::json
                  FROM unnest(\(.uuids(events.map { $0.duelID }))::uuid[], \(.ints(events.map { $0.seq }))::int[],
                              \(.texts(events.map { $0.kind.rawValue }))::text[], \(.bigints(events.map { $0.atMs }))::bigint[],
                              \(.texts(events.map { $0.recordJSON }))::text[])
                       AS e(duel_id, seq, kind, at_ms, record)
                 WHERE (SELECT n FROM locked) >= 0
                RETURNING 1)
            SELECT pg_notify('duel_events', p) FROM unnest(\(PGBinaryArray.texts(payloads))::text[]) AS p
            """
    }
}

/// The event ranges a batch announces to other instances: per duel, from its first new seq to
/// its last, with the players of a new duel (see ``DuelNotification``).
struct Announcements {
    private(set) var ranges: [DuelNotification.Range] = []
    private var index: [String: Int] = [:]

    mutating func add(_ stored: [StoredEvent], duelID: String, players: [String]) {
        guard let first = stored.first, let last = stored.last else { return }
        if let at = index[duelID] {
            ranges[at] = .init(duelID: duelID, firstSeq: ranges[at].firstSeq, lastSeq: last.seq, players: ranges[at].players)
        } else {
            index[duelID] = ranges.count
            ranges.append(.init(duelID: duelID, firstSeq: first.seq, lastSeq: last.seq, players: players))
        }
    }
}
