import DuelCore

extension DuelRepository {
    /// One duel's events as a read derives them (``derivedEvents(_:replays:)``), and its players.
    public typealias DerivedDuel = (players: [PlayerID], events: [StoredEvent])

    /// For each duel, its events with `afterSeq < seq <= upToSeq`, in order, and its players
    /// (unknown or malformed ids are left out).
    ///
    /// The events are derived from the input log, not read (issue 25): the engine is
    /// deterministic, so replaying a duel's logged inputs on its start state gives the events the
    /// lane made when it applied them, with the same seqs and bytes (the test servers check that
    /// for every game they play). A start's own events (`init`, and a first `question` when the
    /// start caught up with it) are not replayed: they come from their stored rows. So does any
    /// event past the end of the log: a duel whose log ``ops.archive_events`` moved to its archive keeps only
    /// its final event. Where a stored row and the replay both have a seq, the replay's wins.
    ///
    /// A read starts from the state `replays` (the instance's, which outlive the call, so they are
    /// given per read, not kept by the repository) holds for the duel when that state is not past
    /// `afterSeq`, and publishes what it replayed, so that the next read of the duel replays only
    /// the inputs logged since. Without it, every read replays from the start. Only the events a
    /// read returns are serialized.
    public func derivedEvents(
        _ reads: [(duelID: String, afterSeq: Int, upToSeq: Int)], replays: DuelReplays? = nil
    ) throws -> [String: DerivedDuel] {
        // Keyed by the id as the database prints it, lower case, whatever case the caller used.
        var wanted: [String: (after: Int, upTo: Int)] = [:]
        for read in reads where UUIDText.isValid(read.duelID) {
            let id = read.duelID.lowercased()
            wanted[id] = wanted[id].map { (min($0.after, read.afterSeq), max($0.upTo, read.upToSeq)) }
                ?? (read.afterSeq, read.upToSeq)
        }
        guard !wanted.isEmpty else { return [:] }
        let ids = wanted.keys.sorted()
        // The players, and the stored rows in each range: the start's events, a final record, and
        // whatever else older servers (or `--store-every-event`) stored.
        let stored = try storedEvents(ids.map { ($0, wanted[$0]!.after, wanted[$0]!.upTo) })
        let found = ids.filter { stored[$0] != nil }
        var replay: Replay
        do {
            replay = try self.replay(found, wanted: wanted, replays: replays)
        } catch let error as PGError {
            throw error
        } catch {
            // A duel whose start or log this build cannot read (a hand-edited row) must not fail
            // the others' read, nor a sign-in into it: each is replayed alone, and one that fails
            // keeps its stored rows, as servers before derived reads gave. (Only a database error
            // leaves the caller's transaction unusable; these are the engine's and the decoder's.)
            replay = Replay()
            for id in found {
                guard let one = try? self.replay([id], wanted: wanted, replays: replays) else { continue }
                replay.rebuilt.merge(one.rebuilt) { $1 }
                replay.startSeqs.merge(one.startSeqs) { $1 }
                replay.events.merge(one.events) { $1 }
            }
        }
        var derived: [String: DerivedDuel] = [:]
        for id in found {
            guard let (players, rows) = stored[id], let state = replay.rebuilt[id], let startSeq = replay.startSeqs[id] else {
                derived[id] = stored[id]
                continue
            }
            replays?.publish(DuelReplays.Entry(version: state.version, duel: state.duel, startSeq: startSeq))
            // Stored rows outside what the replay covers: the start's events, and any past the log.
            let kept = rows.filter { $0.seq <= startSeq || $0.seq > state.duel.seq }
            let events = kept.filter { $0.seq <= startSeq } + (replay.events[id] ?? []) + kept.filter { $0.seq > startSeq }
            derived[id] = (players, events)
        }
        return derived
    }

    /// What ``derivedEvents(_:replays:)`` replayed: each duel's state and input count after its
    /// log, its start's last seq, and its events in the read's range.
    private struct Replay {
        var rebuilt: [String: (duel: Duel, version: Int)] = [:]
        var startSeqs: [String: Int] = [:]
        var events: [String: [StoredEvent]] = [:]
    }

    /// Replays `ids`' logs, each from a kept state not past its read, or from its start.
    private func replay(
        _ ids: [String], wanted: [String: (after: Int, upTo: Int)], replays: DuelReplays?
    ) throws -> Replay {
        var replay = Replay()
        var known: [String: (duel: Duel, version: Int)] = [:]
        for id in ids {
            if let entry = replays?.latest(of: id), entry.duel.seq <= wanted[id]!.after {
                known[id] = (entry.duel, entry.version)
                replay.startSeqs[id] = entry.startSeq
            }
        }
        let rebuilt = try rebuildDuels(ids, from: known, onStart: { id, start in
            replay.startSeqs[id] = start.seq
        }, onStep: { id, step in
            guard step.logsInput, let range = wanted[id] else { return }
            for event in step.events where event.seq > range.after && event.seq <= range.upTo {
                replay.events[id, default: []].append(StoredEvent(
                    duelID: id, seq: event.seq, kind: event.kind, atMs: event.atMs, recordJSON: event.record.serialized))
            }
        })
        replay.rebuilt = rebuilt
        return replay
    }

    /// For each duel, its players and the rows stored of its events with `afterSeq < seq <=
    /// upToSeq` (unknown ids are left out). Rounds store a game's `complete` only, unless the
    /// server runs with `--store-every-event`; a start stores its own events. Readers want
    /// ``derivedEvents(_:replays:)``; this is for the check that the stored rows are what the log gives.
    public func storedEvents(_ reads: [(duelID: String, afterSeq: Int, upToSeq: Int)]) throws -> [String: DerivedDuel] {
        let valid = reads.filter { UUIDText.isValid($0.duelID) }
        guard !valid.isEmpty else { return [:] }
        var stored: [String: DerivedDuel] = [:]
        // Driven by `duels`, not by the id list: Citus joins two co-located tables on their duel id
        // (one shard for one duel), but refuses an outer join whose outer side is a function's rows.
        let ids = PGArray(valid.map(\.duelID))
        for row in try db.query("""
            SELECT d.id::text AS duel, d.player_a::text AS a, d.player_b::text AS b, d.more_players::text AS more,
                   e.seq, e.kind, e.at_ms, e.record::text AS record
              FROM duels d
              LEFT JOIN duel_events e ON e.duel_id = d.id
                   AND e.seq > (\(PGArray(valid.map { Int64($0.afterSeq) }))::int[])[array_position(\(ids)::uuid[], d.id)]
                   AND e.seq <= (\(PGArray(valid.map { Int64($0.upToSeq) }))::int[])[array_position(\(ids)::uuid[], d.id)]
             WHERE d.id = ANY(\(ids)::uuid[])
             ORDER BY d.id, e.seq
            """) {
            let duel = try row.string("duel")
            if stored[duel] == nil { stored[duel] = (try row.seats(), []) }
            guard row.optionalString("seq") != nil else { continue }
            stored[duel]!.events.append(StoredEvent(
                duelID: duel, seq: try row.int("seq"), kind: DuelEventKind(rawValue: try row.string("kind")) ?? .answered,
                atMs: try row.int64("at_ms"), recordJSON: try row.string("record")))
        }
        return stored
    }
}
