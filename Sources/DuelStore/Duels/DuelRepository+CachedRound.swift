import DuelCore

extension DuelRepository {
    /// A lane's usual round in one round trip (issue 25), or nil when the round needs the
    /// locking path of ``applyInputs(_:lane:outbox:)``.
    ///
    /// At human pace a round carries a few inputs, and its four round trips (`BEGIN`, the lock,
    /// the write, `COMMIT`) each woke the server and Postgres: that fixed cost, not the rows,
    /// was most of an answer's CPU. When every duel of the batch is in the lane's cache (with
    /// its bank), the engine runs on the cached states first, and the write goes to Postgres as
    /// one pipeline, one implicit transaction committed at its Sync. It takes no lock first: the
    /// write's UPDATE locks the rows, in id order like the locking path.
    ///
    /// The cached states are a guess that holds unless another instance moved a duel on (a
    /// reconnect there, an operator's end). The guess is checked two ways inside the
    /// transaction:
    /// - a duel that logs an input here writes input number `cached version + 1`, which already
    ///   exists when the duel moved on (or is being written by the other instance, whose commit
    ///   the insert then waits for): the input log's primary key fails the whole transaction,
    ///   nothing is written, and the locking path redoes the round;
    /// - a duel that logged nothing in this round (its inputs were refused on the cached state)
    ///   has its version read (``versionQuery(_:)``); when it moved on, its inputs are redone by
    ///   the locking path after the commit, in their order. A refusal that stands
    ///   (``DuelStep/refusalStands``: every refusal of an answer but one to a question that may
    ///   still open, and `duel_over` or `not_in_duel` for anything else) needs no read: every
    ///   later state refuses it too, if perhaps with another code. At human pace those are most
    ///   of the refusals (players who answer after the question was won), and a round of nothing
    ///   else sends nothing to Postgres.
    ///
    /// A round that finishes games sends their ratings, progress (or, with
    /// ``DuelLaneState/progressApart``, its record for the progress settler) and departures in
    /// the same pipeline (their statements need nothing back from one another). Rounds that finish a
    /// practice or room game use the locking path (their statements read before they write), and
    /// so do rounds whose progress notifications another instance must hear. On Citus the
    /// locking path is kept too (it writes shard by shard).
    func applyCachedRound(
        _ items: [DuelInputItem], lane: inout DuelLaneState, outbox: Outbox
    ) -> [Result<DuelUpdate?, Error>]? {
        guard !lane.distributed else { return nil }
        var states: [String: LaneState] = [:]
        for item in items where states[item.duelID] == nil {
            guard let entry = lane.cache.latest(of: item.duelID), let bank = entry.bankID else { return nil }
            states[item.duelID] = LaneState(duel: entry.duel, version: entry.version, bankID: bank)
        }
        let before = states.mapValues(\.version)
        let (writes, updates) = Self.run(items, on: &states, storesEveryEvent: lane.storesEveryEvent)
        // Notifications another instance must hear are announced by the outbox's own last
        // statement, which needs them first: that round takes the locking path.
        guard writes.fitsOnePipeline, !(lane.announces && writes.grantsProgress) else { return nil }
        let (queries, progressAt) = writes.pipelined(payloads: writes.payloads(for: db, announces: lane.announces),
                                                     progressApart: lane.progressApart)
        // The duels whose inputs were all refused write nothing: their versions are read, to
        // check the guess, unless every refusal stands.
        let unwritten = writes.judgedUnwritten.filter { !writes.writesRow(of: $0) }.sorted()
        let check = unwritten.isEmpty ? 0 : 1
        guard check == 1 || !queries.isEmpty else { return updates.map { .success($0) } }
        let results: [[PGRow]]
        do {
            results = try db.pipeline((unwritten.isEmpty ? [] : [Self.versionQuery(unwritten)]) + queries)
        } catch {
            // A duel moved on (the input log's key), or anything else: the locking path decides.
            return nil
        }
        if let progressAt, let payloads = try? ProgressColumns.payloads(results[check + progressAt]) {
            writes.addNotifications(payloads, announces: false, to: outbox)
        }
        if lane.progressApart { lane.owedProgress.merge(writes.settlements.owingProgress) }
        var stored: [String: Int] = [:]
        for row in check == 1 ? results[0] : [] {
            if let id = try? row.string("id"), let version = try? row.int("inputs") { stored[id] = version }
        }
        let moved = Set(unwritten.filter { stored[$0] != before[$0] })
        for (id, state) in states where !moved.contains(id) {
            lane.cache.remember(state.duel, version: state.version, bankID: state.bankID)
        }
        guard !moved.isEmpty else { return updates.map { .success($0) } }
        // The moved duels' inputs changed nothing (else the commit had failed): redo them on
        // their stored state, which the locking path catches up to from the cached one.
        var answers = updates.map { Result<DuelUpdate?, Error>.success($0) }
        let redo = items.indices.filter { moved.contains(items[$0].duelID) }
        for (index, result) in zip(redo, applyLocking(redo.map { items[$0] }, lane: &lane, outbox: outbox)) { answers[index] = result }
        return answers
    }

    /// The versions of duels a round read but did not write (other than standing refusals). No
    /// lock: what the round judged was right as of this read, which is where the round takes its
    /// place among other instances' writes.
    static func versionQuery(_ ids: [String]) -> SQLQuery {
        "SELECT id::text AS id, inputs FROM duels WHERE id = ANY(\(PGArray(ids))::uuid[])"
    }
}
