import DuelCore

/// What games that ended, or that players left, owe their players' rows: both ratings once,
/// progress, practice counts, the live markers that go, and the reopened rooms' announcements.
/// Built from each game's state after the batch (not from the steps), so that a game settled
/// later, from its stored log, owes exactly what it owed at the time.
///
/// Where it is written depends on the database (docs/ARCHITECTURE.md, "Settling a finished
/// game"): on plain Postgres inside the transaction that ended the games, except progress when
/// the lane has a ``ProgressSettler`` (granted apart, in a transaction of its own, before the
/// games' `complete`s go out); on Citus, where these rows live on the players' shards, in a
/// transaction of its own right after the lane's one-shard commit
/// (``DuelRepository/settle(_:announces:outbox:)``).
struct DuelSettlements {
    /// Which of the debts a write carries.
    enum Scope: Sendable {
        case everything
        /// Ratings, practice counts, markers and rooms: the round's share when progress is settled apart.
        case allButProgress
        /// Progress alone: what a record of `progress_only` owes.
        case progressOnly
    }

    private struct Entry {
        let id: String
        var duel: Duel
        let bankID: Int
        /// The duel's input count at this state.
        var version: Int
        var announce: Bool
    }

    /// Duels in first-added order, each with its latest state; `index` finds a duel's entry.
    private var settled: [Entry] = []
    private var index: [String: Int] = [:]

    var isEmpty: Bool { settled.isEmpty }
    /// How many duels owe something.
    var count: Int { settled.count }
    /// The duels that owe something, in first-added order.
    var duelIDs: [String] { settled.map(\.id) }

    /// Records what `duel` owes after a step that ended it or that a player left. A later state
    /// of the same duel replaces the earlier: what a game owes depends only on where it stands.
    /// `announce`: whether the game's events were announced to other instances (when not, this
    /// instance holds all its players, and their notifications need no NOTIFY either).
    mutating func add(_ duel: Duel, duelID: String, bankID: Int, version: Int, announce: Bool) {
        let entry = Entry(id: duelID, duel: duel, bankID: bankID, version: version, announce: announce)
        if let at = index[duelID] {
            settled[at] = entry
        } else {
            index[duelID] = settled.count
            settled.append(entry)
        }
    }

    /// Adds every entry of `other` (a later state of a duel replaces the earlier).
    mutating func merge(_ other: DuelSettlements) {
        for entry in other.settled {
            add(entry.duel, duelID: entry.id, bankID: entry.bankID, version: entry.version, announce: entry.announce)
        }
    }

    /// The finished games that grant progress, alone: what a round leaves to the progress settler.
    var owingProgress: DuelSettlements {
        keeping(Set(settled.filter { $0.duel.hasCompletionFacts }.map(\.id)))
    }

    /// The input count of the state recorded for `duelID`, if any.
    func version(of duelID: String) -> Int? { index[duelID].map { settled[$0].version } }

    /// The same, for `ids` alone (the records a settling transaction claimed).
    func keeping(_ ids: Set<String>) -> DuelSettlements {
        var kept = DuelSettlements()
        for entry in settled where ids.contains(entry.id) {
            kept.add(entry.duel, duelID: entry.id, bankID: entry.bankID, version: entry.version, announce: entry.announce)
        }
        return kept
    }

    /// Finished duels with their bank: the ratings to write once (an operator's end rates nothing).
    var completions: [(duelID: String, bankID: Int, result: DuelResult)] {
        settled.compactMap { entry in
            guard let result = entry.duel.result, result.isRated else { return nil }
            return (entry.id, entry.bankID, result)
        }
    }

    /// Finished games' facts, one row per player: progress to grant once.
    private var progress: ProgressColumns {
        var progress = ProgressColumns()
        for entry in settled {
            guard let result = entry.duel.result else { continue }
            for facts in entry.duel.completionFacts {
                progress.append(facts, duelID: entry.id, bankID: entry.bankID, mode: entry.duel.mode,
                                finishedAtMs: result.finishedAtMs)
            }
        }
        return progress
    }

    /// Finished practice games whose right answers count towards learning: not one an operator
    /// ended, which grants nothing (a question it made learned would leave the notebook unpaid).
    private var countedPractice: [String?] {
        settled.filter { $0.duel.mode == .practice && $0.duel.hasCompletionFacts }.map { $0.id }
    }

    /// Finished games of `mode`.
    private func finished(_ mode: DuelMode) -> [String?] {
        settled.filter { $0.duel.phase == .finished && $0.duel.mode == mode }.map { $0.id }
    }

    /// Live markers that go: every player of a finished game, and those who left a game that
    /// plays on (a marker already gone matches nothing).
    private var left: [(duel: String, player: PlayerID)] {
        settled.flatMap { entry -> [(duel: String, player: PlayerID)] in
            if let result = entry.duel.result { return result.outcomes.map { (entry.id, $0.player) } }
            return entry.duel.players.filter { $0.leftAtMs != nil }.map { (entry.id, $0.id) }
        }
    }

    /// Players of finished games that were not announced.
    private var quietPlayers: Set<PlayerID> {
        Set(settled.filter { !$0.announce && $0.duel.phase == .finished }.flatMap { $0.duel.players.map(\.id) })
    }

    /// Whether finished games grant progress (whose notifications the caller may have to announce).
    var grantsProgress: Bool { settled.contains { $0.duel.hasCompletionFacts } }

    /// Whether every statement needs nothing back from another, so one pipeline can carry them
    /// (``pipelined()``): a practice game's count and a room's reopening read before they write.
    var fitsOnePipeline: Bool { countedPractice.isEmpty && finished(.room).isEmpty }

    /// Writes `scope` inside the caller's transaction: ratings, practice counts, progress (its
    /// notifications into `outbox`), departures, and the rooms' announcements (into `outbox`).
    /// `.allButProgress` also records the games that owe progress (`duel_settlements`, `progress_only`)
    /// for the progress settler.
    func write(on connection: PGConnection, announces: Bool, outbox: Outbox, scope: Scope = .everything) throws {
        guard !isEmpty else { return }
        let rest = scope != .progressOnly
        if rest, let ratings = DuelRepository.ratingsStatement(completions) { try connection.query(ratings) }
        let practice = countedPractice
        if rest, !practice.isEmpty { try DuelRepository(connection).countPractice(duels: practice) }
        // After ratings (giant slayer reads them) and practice (learned mistakes count): in the
        // same transaction, or in a later one when settled apart.
        let progress = progress
        if scope != .allButProgress, !progress.isEmpty {
            addNotifications(try ProgressColumns.payloads(connection.query(progress.statement())), announces: announces,
                             to: outbox)
        }
        if scope == .allButProgress, let record = owingProgress.recordStatement(progressOnly: true) {
            try connection.query(record)
        }
        guard rest else { return }
        if let departures = departuresStatement() { try connection.query(departures) }
        let rooms = finished(.room)
        if !rooms.isEmpty { try RoomRepository(connection).announceRooms(ofGames: rooms, into: outbox) }
    }

    /// The statements of ``write(on:announces:outbox:scope:)`` for one pipeline (when
    /// ``fitsOnePipeline``; `scope` `.everything` or `.allButProgress`), and which of them returns
    /// the progress notifications.
    func pipelined(scope: Scope = .everything) -> (queries: [SQLQuery], progressAt: Int?) {
        var queries: [SQLQuery] = []
        if let ratings = DuelRepository.ratingsStatement(completions) { queries.append(ratings) }
        var progressAt: Int?
        let progress = progress
        if scope == .allButProgress {
            if let record = owingProgress.recordStatement(progressOnly: true) { queries.append(record) }
        } else if !progress.isEmpty {
            progressAt = queries.count
            queries.append(progress.statement())
        }
        if let departures = departuresStatement() { queries.append(departures) }
        return (queries, progressAt)
    }

    /// Puts the notifications that finished games granted (`payloads` of `record_progress`) into
    /// `outbox`, announced only when `announces` and the player's game was announced.
    func addNotifications(_ payloads: [String], announces: Bool, to outbox: Outbox) {
        let quiet = quietPlayers
        for payload in payloads {
            // Parsed once: its player decides whether it is announced.
            guard let event = PlayerEvent(notification: Substring(payload)) else { continue }
            outbox.add(event, announce: announces && !event.players.contains(where: quiet.contains))
        }
    }

    /// The live markers that go, each by its own (player, duel) pair. The players' ids are also a
    /// list of their own, which Citus uses to reach only their shards. Pairs, not two lists: a
    /// player who left one game earlier may be in another game of the same batch, whose marker
    /// must stay.
    private func departuresStatement() -> SQLQuery? {
        let left = left
        guard !left.isEmpty else { return nil }
        return """
            DELETE FROM live_duel_players
             WHERE player_id = ANY(\(PGArray(left.map { Optional($0.player) }))::uuid[])
               AND player_id::text || '/' || duel_id::text = ANY(\(PGArray(left.map { Optional($0.player + "/" + $0.duel) }))::text[])
            """
    }

    /// On Citus: the record, in the lane's one-shard transaction, that these duels owe their
    /// players (migration 023), with the input count of the state that owes it. Multi-row
    /// `VALUES`, which Citus sends to the batch's one shard. A record still waiting (a player
    /// left, and now the game ended) takes the newer count: its row is locked until this
    /// transaction ends, so a settler that deletes it meanwhile waits and reads the newer one.
    ///
    /// `progressOnly` (plain Postgres with a progress settler): the round wrote everything else,
    /// and the record owes only the games' progress (migration 025).
    func recordStatement(progressOnly: Bool = false) -> SQLQuery? {
        guard !isEmpty else { return nil }
        var query = DuelWrites.values(
            into: "duel_settlements",
            columns: [("duel_id", "?::uuid"), ("version", "?::int"), ("progress_only", "?::boolean")],
            rows: settled.map { [$0.id, String($0.version), progressOnly ? "true" : "false"] })
        query.sql += " ON CONFLICT (duel_id) DO UPDATE SET version = excluded.version"
        return query
    }
}
