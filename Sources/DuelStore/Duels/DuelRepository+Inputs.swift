import DuelCore
import Foundation

extension DuelRepository {
    /// Applies a batch of inputs to their duels in one transaction, and returns one
    /// result per item, in the items' order: the duel's update, or nil for an unknown duel.
    ///
    /// The touched duel rows are locked in id order (two instances never deadlock),
    /// the engine runs on every input in arrival order (stamp order, stable), and
    /// multi-row statements write the logged inputs, the duel rows, answers, events,
    /// ratings and practice progress, with one NOTIFY per 7,900 bytes of announcements. The states in
    /// this connection's cache change only after the commit.
    ///
    /// When the batch's writes fail (a constraint, a duel in a bad state), each duel's
    /// inputs are retried in a transaction of their own, so one failing duel fails
    /// alone and the others commit. `lane` holds the states the lane last committed (they
    /// change only after the commit) and whether events are announced. What the committed
    /// transactions have for players beside duel events (notifications, reopened rooms) is added
    /// to `outbox`, for the server to deliver.
    public func applyInputs(
        _ items: [DuelInputItem], lane: inout DuelLaneState, outbox: Outbox = Outbox()
    ) -> [Result<DuelUpdate?, Error>] {
        guard !items.isEmpty else { return [] }
        if let results = applyCachedRound(items, lane: &lane, outbox: outbox) { return results }
        return applyLocking(items, lane: &lane, outbox: outbox)
    }

    /// The locking path of ``applyInputs(_:lane:outbox:)``: the duel rows are locked and read
    /// first, so each input is judged on the stored state, caught up when another instance
    /// moved it on.
    func applyLocking(
        _ items: [DuelInputItem], lane: inout DuelLaneState, outbox: Outbox
    ) -> [Result<DuelUpdate?, Error>] {
        do {
            // `lane` is read, not copied, inside: a copy alive at the cache's update below would
            // copy the whole cache.
            let (updates, states, owed, heldBack) = try outbox.transaction(on: db) { _ in
                try applyOnce(items, lane: lane, outbox: outbox)
            }
            for state in states.values { lane.cache.remember(state.duel, version: state.version, bankID: state.bankID) }
            // On Citus the round only recorded what its ended games owe their players: settled
            // now, before anyone hears of the end (the lane replies after this, and the round's
            // NOTIFY goes with the settlement), so a player who queues again at once finds their
            // rating and marker already settled. A failure leaves the record to the sweep
            // (``settlePending(limit:olderThanSeconds:outbox:)``); the round's own commit stands,
            // and its events are announced alone.
            if !owed.isEmpty, !lane.distributed {
                // Plain Postgres: the round recorded its games' progress for the progress settler.
                lane.owedProgress.merge(owed)
            } else if !owed.isEmpty {
                do {
                    try settle(owed, announces: lane.announces, outbox: outbox, payloads: heldBack)
                } catch {
                    lane.unsettled += 1
                    if !heldBack.isEmpty { _ = try? db.query(DuelWrites.notifyStatement(heldBack)) }
                }
            }
            return updates.map { .success($0) }
        } catch {
            let duels = Set(items.map(\.duelID))
            let lost = (error as? PGError)?.isConnectionFailure ?? false
            guard duels.count > 1, !lost else { return items.map { _ in .failure(error) } }
            var results = [Result<DuelUpdate?, Error>?](repeating: nil, count: items.count)
            for duel in duels.sorted() {
                let indices = items.indices.filter { items[$0].duelID == duel }
                for (index, result) in zip(indices, applyInputs(indices.map { items[$0] }, lane: &lane, outbox: outbox)) {
                    results[index] = result
                }
            }
            return results.map { $0! }
        }
    }

    /// A convenience for one input (tests, tools): ``applyInputs(_:lane:)`` of one item, with
    /// no lane's cache (the state is rebuilt from the log) and events announced.
    public func updateDuel(id: String, _ input: DuelInput) throws -> DuelUpdate? {
        var lane = DuelLaneState()
        return try applyInputs([DuelInputItem(duelID: id, input: input)], lane: &lane)[0].get()
    }

    private func applyOnce(
        _ items: [DuelInputItem], lane: borrowing DuelLaneState, outbox: Outbox
    ) throws -> ([DuelUpdate?], [String: LaneState], DuelSettlements, [String]) {
        let ids = Set(items.lazy.map(\.duelID).filter(UUIDText.isValid)).sorted()
        var states: [String: LaneState] = [:]
        var banks: [String: Int] = [:]
        var versions: [String: Int] = [:]
        var stale: [String] = []
        var now: String?
        if !ids.isEmpty {
            for row in try db.query(Self.lockQuery(ids)) {
                now = try row.string("now")
                let id = try row.string("id")
                let version = try row.int("inputs")
                versions[id] = version
                banks[id] = try row.int("bank_id")
                if let duel = lane.cache.state(of: id, version: version) {
                    states[id] = LaneState(duel: duel, version: version, bankID: banks[id]!)
                } else {
                    stale.append(id)
                }
            }
        }
        // A duel another instance moved on catches up from the state this lane last committed:
        // only the inputs logged since are read and replayed, not the whole game from its start.
        var cached: [String: (duel: Duel, version: Int)] = [:]
        for id in stale {
            if let entry = lane.cache.latest(of: id), let stored = versions[id], entry.version < stored {
                cached[id] = (entry.duel, entry.version)
            }
        }
        for (id, rebuilt) in try rebuildDuels(stale, from: cached) {
            if let bank = banks[id] { states[id] = LaneState(duel: rebuilt.duel, version: rebuilt.version, bankID: bank) }
        }
        let (writes, updates) = Self.run(items, on: &states, storesEveryEvent: lane.storesEveryEvent)
        let heldBack = try writes.write(on: db, now: now, announces: lane.announces, shardByShard: lane.distributed,
                                        progressApart: lane.progressApart, outbox: outbox)
        let owed = lane.distributed ? writes.settlements
            : lane.progressApart ? writes.settlements.owingProgress : DuelSettlements()
        return (updates, states, owed, heldBack)
    }

    /// A duel as a lane round works on it: its engine state, its version (`duels.inputs`) and its bank.
    struct LaneState {
        var duel: Duel
        var version: Int
        let bankID: Int
    }

    /// The lock every round takes first: the batch's duel rows in id order (two instances never
    /// deadlock), with their versions.
    static func lockQuery(_ ids: [String]) -> SQLQuery {
        """
        SELECT id::text AS id, inputs, bank_id, now()::text AS now FROM duels
         WHERE id = ANY(\(PGArray(ids))::uuid[]) ORDER BY id FOR UPDATE
        """
    }

    /// Runs the engine on every input of the batch whose duel is in `states`, in arrival order,
    /// and returns the writes and one update per item (nil for an unknown duel). Pure.
    static func run(
        _ items: [DuelInputItem], on states: inout [String: LaneState], storesEveryEvent: Bool = false
    ) -> (DuelWrites, [DuelUpdate?]) {
        var writes = DuelWrites(storesEveryEvent: storesEveryEvent)
        var updates = [DuelUpdate?](repeating: nil, count: items.count)
        // Arrival order: inputs are stamped on arrival by different threads, so the
        // batch is applied in stamp order (stable for equal stamps).
        let order = items.indices.sorted { (items[$0].input.atMs, $0) < (items[$1].input.atMs, $1) }
        for index in order {
            let item = items[index]
            guard var state = states[item.duelID] else { continue }
            let step = state.duel.apply(item.input)
            if step.logsInput { state.version += 1 }
            let events = writes.add(step, duel: state.duel, duelID: item.duelID, bankID: state.bankID, input: item.input,
                                    version: state.version, announce: item.announce)
            states[item.duelID] = state
            updates[index] = DuelUpdate(
                // The accounts: a recorded opponent is none, and no instance holds it, so listed
                // it made every input of a recorded game announced while another instance ran.
                duelID: item.duelID, seq: state.duel.seq, players: state.duel.players.compactMap { $0.isRecorded ? nil : $0.id },
                // A standing refusal changed nothing, and its state may be a stale cache's (a cached
                // round does not check it): it arms no timer.
                outcome: step.outcome, events: events,
                nextDeadlineMs: step.refusalStands && !step.logsInput ? nil : state.duel.nextDeadlineMs,
                finished: state.duel.phase == .finished)
        }
        return (writes, updates)
    }

    /// Rebuilds duels from their stored base state and input log (after a restart,
    /// or when another instance moved them on). The lanes call it under their row locks;
    /// ``replayedEvents(_:)`` on a snapshot.
    /// `from`: per duel, a state already known with its version: only the inputs logged after it
    /// are read and applied (its start state is not read).
    /// `upTo`: per duel, the last input to apply (all when absent).
    /// The start state is in `duel_starts` (migration 026); a duel created before it, or by an
    /// older server since, has it in `duels.base_state`.
    /// `onStart` sees each duel's start state (not called for a duel in `from`), and `onStep` each
    /// replayed input's step, with the duel's id.
    func rebuildDuels(
        _ ids: [String], from known: [String: (duel: Duel, version: Int)] = [:], upTo: [String: Int] = [:],
        onStart: (String, Duel) -> Void = { _, _ in }, onStep: (String, DuelStep) -> Void = { _, _ in }
    ) throws -> [String: (duel: Duel, version: Int)] {
        guard !ids.isEmpty else { return [:] }
        var rebuilt = known.filter { ids.contains($0.key) }
        let fresh = ids.filter { rebuilt[$0] == nil }
        if !fresh.isEmpty {
            for row in try db.query("""
                SELECT d.id::text AS id, coalesce(s.base_state, d.base_state)::text AS base
                  FROM duels d LEFT JOIN duel_starts s ON s.duel_id = d.id
                 WHERE d.id = ANY(\(PGArray(fresh))::uuid[])
                """) {
                let text = try row.string("base")
                let (id, start) = (try row.string("id"), try JSONDecoder().decode(Duel.self, from: Data(text.utf8)))
                onStart(id, start)
                rebuilt[id] = (start, 0)
            }
        }
        // Each duel's inputs after the version it has: a filter beside `duel_id = ANY`, so that on
        // Citus a one-duel read still goes to its one shard.
        let after = ids.map { Int64(rebuilt[$0]?.version ?? 0) }
        for row in try db.query("""
            SELECT duel_id::text AS duel, n, kind, player_id::text AS player, question_index, choice, at_ms,
                   choices, answer_text, answer_number, lag_ms
              FROM duel_inputs
             WHERE duel_id = ANY(\(PGArray(ids))::uuid[])
               AND n > (\(PGArray(after))::int[])[array_position(\(PGArray(ids))::uuid[], duel_id)]
             ORDER BY duel_id, n
            """) {
            let id = try row.string("duel")
            if let last = upTo[id], try row.int("n") > last { continue }
            guard var entry = rebuilt[id], let input = DuelInput(
                kind: try row.string("kind"), player: row.optionalString("player"),
                questionIndex: row.optionalString("question_index").flatMap { Int($0) },
                submission: try row.submission(), atMs: try row.int64("at_ms"),
                lagMs: row.optionalString("lag_ms").flatMap { Int64($0) })
            else { throw StoreError(.internal, "duel \(id): unreadable input \(try row.int("n"))") }
            onStep(id, entry.duel.apply(input))
            entry.version += 1
            rebuilt[id] = entry
        }
        return rebuilt
    }

    /// What the input logs of `ids` give, replayed on their start states: the events as they would
    /// be stored, after the last seq of each start (its `init`, and the first question when the
    /// start caught up with it, are written with the duel, not replayed); the inputs that changed
    /// nothing on replay (every logged input changed the duel when it was applied, so none should);
    /// and the duel's last seq and input count after them (its row's `last_seq` and `inputs`).
    /// The engine is deterministic, so these are the stored events; the test servers check that
    /// for every game they play (issue 25: deriving the events from the log instead of storing
    /// them, about two thirds of the WAL, needs it; bench/NOTES.md item 50).
    public func replayedEvents(_ ids: [String]) throws -> [String: ReplayedDuel] {
        var replayed: [String: ReplayedDuel] = [:]
        let rebuilt = try rebuildDuels(ids, onStart: { id, start in
            replayed[id] = ReplayedDuel(startSeq: start.seq)
        }, onStep: { id, step in
            guard step.logsInput else {
                replayed[id]?.unchangedInputs += 1
                return
            }
            replayed[id]?.events += step.events.map { event in
                StoredEvent(duelID: id, seq: event.seq, kind: event.kind, atMs: event.atMs,
                            recordJSON: event.record.serialized)
            }
        })
        for (id, duel) in rebuilt {
            replayed[id]?.lastSeq = duel.duel.seq
            replayed[id]?.inputs = duel.version
        }
        return replayed
    }
}

