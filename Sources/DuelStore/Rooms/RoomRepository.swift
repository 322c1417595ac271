import DuelCore
import Foundation

/// Rooms, challenges, rematches and the `player_events` they announce (issue 22). Runs on the
/// connection it is given and keeps no state.
///
/// Rooms (migration 012): create, join, leave, start, and members who stayed away.
/// Each op runs in one transaction that locks the room's row, and puts the room's new state for
/// its members in the caller's ``Outbox`` (announced at the transaction's end).
public struct RoomRepository {
    /// The connection every query runs on.
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    /// Refuses the requester when they are queued (`already_queued`), play a live game
    /// (`in_duel`) or are a member of a room (`in_room`): each of those owns their next game.
    public func checkFree(_ player: PlayerID) throws {
        try checkFree([player], requester: player)
    }

    /// The same for every player a new game would seat (locked first, ``lockPlayers(_:)``):
    /// the first busy one decides the code, and a player other than `requester` is named.
    /// `roomAllowed`: a room's own game, whose players are its members.
    func checkFree(_ players: [PlayerID], requester: PlayerID, roomAllowed: Bool = false) throws {
        try PlayerRepository(db).lockPlayers(players)
        // Who is in a game, in a statement of its own: on Citus the live markers sit on the
        // players' shards and the queue and rooms on the coordinator, which one statement cannot
        // join (issue 24).
        let ids = PGArray(players.map { Optional($0) })
        let playing = Set(try db.query("""
            SELECT player_id::text AS id FROM live_duel_players WHERE player_id = ANY(\(ids)::uuid[])
            """).map { try $0.string("id") })
        for row in try db.query("""
            SELECT w.id::text AS id, p.username,
                   EXISTS (SELECT 1 FROM match_queue q WHERE q.player_id = w.id) AS queued,
                   EXISTS (SELECT 1 FROM room_members m WHERE m.player_id = w.id) AS in_room
              FROM unnest(\(ids)::uuid[]) WITH ORDINALITY AS w(id, n)
              JOIN players p ON p.id = w.id
             ORDER BY w.n
            """) {
            let other = try row.string("id") == requester ? nil : try row.string("username")
            if try row.bool("queued") {
                throw StoreError(.alreadyQueued, other.map { "\($0) is waiting in a queue" })
            }
            if playing.contains(try row.string("id")) { throw StoreError(.inDuel, other.map { "\($0) is in another game" }) }
            if try !roomAllowed && row.bool("in_room") {
                throw StoreError(.inRoom, other.map { "\($0) is in a room" })
            }
        }
    }

    /// `room_create`: a new room with `player` as host and only member.
    public func createRoom(
        player: PlayerID, bank slug: String, questions: Int, answerMs: Int, maxPlayers: Int, nowMs: Int64,
        outbox: Outbox
    ) throws -> Room {
        try outbox.transaction(on: db) { db in
            try checkFree(player)
            guard let bank = try db.query("SELECT id FROM banks b WHERE slug = \(slug) AND \(unsafeRaw: BankSummary.playable("b", by: player))").first else {
                throw StoreError(.unknownBank)
            }
            let bankID = try bank.int("id")
            // A code collision (one in millions while few rooms are open) draws again.
            var roomID: Int64?
            for _ in 0..<8 where roomID == nil {
                roomID = try db.query("""
                    INSERT INTO rooms (code, bank_id, host, questions, answer_ms, max_players)
                    VALUES (\(RoomCode.random()), \(bankID), \(player)::uuid, \(questions), \(answerMs), \(maxPlayers))
                    ON CONFLICT (code) DO NOTHING RETURNING id
                    """).first.map { try $0.int64("id") }
            }
            guard let roomID else { throw StoreError(.internal, "no free room code") }
            try db.query("INSERT INTO room_members (player_id, room_id) VALUES (\(player)::uuid, \(roomID))")
            let room = try room(id: roomID)!
            announce(room, type: "INSERT", nowMs: nowMs, into: outbox)
            return room
        }
    }

    /// `room_join {code}`: refused when the room is full (`room_full`) or plays
    /// (`room_busy`). Joining one's own room again is a no-op that replies the room.
    public func joinRoom(player: PlayerID, code: String, nowMs: Int64, outbox: Outbox) throws -> Room {
        try outbox.transaction(on: db) { db in
            guard let roomID = try lockRoom(code: code) else { throw StoreError(.unknownRoom) }
            var room = try room(id: roomID)!
            if room.memberIDs.contains(player) { return room }
            try checkFree(player)
            if room.state == .playing { throw StoreError(.roomBusy) }
            if room.members.count >= room.maxPlayers { throw StoreError(.roomFull) }
            try db.query("INSERT INTO room_members (player_id, room_id) VALUES (\(player)::uuid, \(roomID))")
            room = try self.room(id: roomID)!
            announce(room, type: "UPDATE", nowMs: nowMs, into: outbox)
            return room
        }
    }

    /// `room_leave {}`: the host role passes to the member who joined first; the last one
    /// out closes the room. A member of a live game must also forfeit it (``RoomChange/forfeit``).
    public func leaveRoom(player: PlayerID, nowMs: Int64, outbox: Outbox) throws -> RoomChange {
        try outbox.transaction(on: db) { db in
            let (roomID, before) = try lockRoom(of: player)
            let forfeit = before.state == .playing ? before.duelID : nil
            return RoomChange(room: try removeMembers([player], from: roomID, nowMs: nowMs, outbox: outbox), forfeit: forfeit)
        }
    }

    /// `room_start {}`: the host starts a game of the room's members (2 to 4), unrated.
    /// Its draw prefers questions the room has not played yet (the rematch is "the next quiz").
    public func startRoom(player: PlayerID, configuration: DuelConfiguration, nowMs: Int64, outbox: Outbox) throws -> RoomChange {
        try outbox.transaction(on: db) { db in
            var (roomID, room) = try lockRoom(of: player)
            guard room.host == player else { throw StoreError(.notHost) }
            if room.state == .playing { throw StoreError(.roomBusy) }
            guard room.members.count >= 2 else { throw StoreError(.roomTooSmall) }
            try checkFree(room.memberIDs, requester: player, roomAllowed: true)
            let bankID = room.bankID
            // The room's quiz may have been deleted or unpublished since the room opened (issue 13).
            try QuizRepository(db).checkPlayable(bankID, by: room.memberIDs)
            var rules = configuration
            rules.questionCount = room.questions
            rules.answerWindowMs = Int64(room.answerMs)
            // The room's played questions are read once, from its games (`duels_room` index):
            // an EXISTS per question was planned as a scan of `duel_questions` (9.9 ms a start).
            let questions = try db.query("""
                WITH played AS (
                    SELECT DISTINCT dq.question_id FROM duels d JOIN duel_questions dq ON dq.duel_id = d.id
                     WHERE d.room_id = \(roomID))
                SELECT \(unsafeRaw: DuelQuestion.columns("q")) FROM questions q
                  LEFT JOIN played p ON p.question_id = q.id
                 WHERE q.bank_id = \(bankID) AND q.active
                 ORDER BY p.question_id IS NOT NULL, -ln(1 - random()) / q.weight
                 LIMIT \(room.questions)
                """).map(DuelQuestion.init(row:))
            guard !questions.isEmpty else { throw StoreError(.bankEmpty) }
            let created = try DuelRepository(db).createGames(
                bankID: bankID, games: [room.memberIDs], mode: .room, configuration: rules, nowMs: nowMs,
                questionSets: [questions], roomID: roomID)[0]
            try db.query("UPDATE rooms SET duel_id = \(created.update.duelID)::uuid, games = games + 1 WHERE id = \(roomID)")
            room = try self.room(id: roomID)!
            announce(room, type: "UPDATE", nowMs: nowMs, into: outbox)
            return RoomChange(room: room, started: created.update, absent: try PlayerRepository(db).absent(room.memberIDs))
        }
    }

    /// The player's room and the challenges waiting for them, read inside a sign-in's own
    /// database job. Most players have neither: one probe of two indexes answers that.
    public func waitingSocial(player: PlayerID) throws -> WaitingSocial {
        let row = try db.query("""
            SELECT (SELECT room_id FROM room_members WHERE player_id = \(player)::uuid) AS room,
                   EXISTS (SELECT 1 FROM challenges WHERE to_player = \(player)::uuid AND state = 'pending'
                              AND expires_at > now()) AS challenged
            """)[0]
        var waiting = WaitingSocial.none
        if let roomID = row["room"].flatMap({ Int64($0) }) { waiting.room = try room(id: roomID) }
        if try row.bool("challenged") {
            waiting.challenges = try pendingChallenges(player: player).filter { $0.to.id == player }
        }
        return waiting
    }

    /// The room `player` is a member of, if any.
    public func room(of player: PlayerID) throws -> Room? {
        guard let row = try db.query("SELECT room_id FROM room_members WHERE player_id = \(player)::uuid").first else {
            return nil
        }
        return try room(id: try row.int64("room_id"))
    }

    /// Members whose last connection closed `afterMs` ago or more leave their rooms (their
    /// live game's own abandonment clock forfeits it), and banned members at once, without
    /// waiting for the delay (issue 23: a banned player's room kept them listed). Any instance
    /// may run it; the DELETE makes each departure happen once. Returns how many left.
    @discardableResult
    public func leaveGoneMembers(afterMs: Int64, nowMs: Int64, outbox: Outbox) throws -> Int {
        try outbox.transaction(on: db) { db in
            // Members held again (a sign-in that raced their absence, or an instance's
            // re-registration after a stall) are not gone.
            try db.query("""
                UPDATE room_members m SET gone_since = NULL
                 WHERE m.gone_since IS NOT NULL
                   AND EXISTS (SELECT 1 FROM presence x JOIN instances i ON i.id = x.instance
                                WHERE x.player_id = m.player_id AND i.heartbeat_at > now() - interval '3 seconds')
                """)
            let gone = try db.query("""
                SELECT m.player_id::text AS player, m.room_id FROM room_members m
                 WHERE (m.gone_since IS NOT NULL AND m.gone_since < now() - make_interval(secs => \(afterMs) / 1000.0))
                    OR EXISTS (SELECT 1 FROM players p WHERE p.id = m.player_id AND p.disabled_at IS NOT NULL)
                 ORDER BY m.room_id
                   FOR UPDATE SKIP LOCKED
                """)
            var byRoom: [Int64: [PlayerID]] = [:]
            for row in gone { byRoom[try row.int64("room_id"), default: []].append(try row.string("player")) }
            for (roomID, players) in byRoom.sorted(by: { $0.key < $1.key }) {
                _ = try db.query("SELECT id FROM rooms WHERE id = \(roomID) FOR UPDATE")
                _ = try removeMembers(players, from: roomID, nowMs: nowMs, outbox: outbox)
            }
            return gone.count
        }
    }

    /// The rooms whose current game is one of `duels` (which just finished) announce that
    /// they are open again. In the lane's transaction: only batches that finish room games.
    func announceRooms(ofGames duels: [String?], into outbox: Outbox) throws {
        // Through the games' primary key and their `room_id`: `rooms` keeps no index on its
        // current game, and a scan of it here held the lane's transaction 28 ms per batch
        // (pg_stat_statements over the rooms scenario).
        for row in try db.query("""
            SELECT r.id FROM duels d JOIN rooms r ON r.id = d.room_id AND r.duel_id = d.id
             WHERE d.id = ANY(\(PGArray(duels))::uuid[])
            """) {
            try announceRoom(id: try row.int64("id"), into: outbox)
        }
    }

    /// Announces a room's current record to its members (a member's `connected` changed).
    func announceRoom(id: Int64, into outbox: Outbox) throws {
        guard let room = try room(id: id) else { return }
        announce(room, type: "UPDATE", nowMs: Int64(Date().timeIntervalSince1970 * 1000), into: outbox)
    }

    // MARK: Internals

    /// Locks the room `player` is a member of and returns it, read under the lock (a leave
    /// that committed meanwhile, from another tab, is seen): `unknown_room` when in none.
    private func lockRoom(of player: PlayerID) throws -> (id: Int64, room: Room) {
        let notIn = StoreError(.unknownRoom, "you are not in a room")
        guard let row = try db.query("SELECT room_id FROM room_members WHERE player_id = \(player)::uuid").first else {
            throw notIn
        }
        let roomID = try row.int64("room_id")
        _ = try db.query("SELECT id FROM rooms WHERE id = \(roomID) FOR UPDATE")
        guard let room = try room(id: roomID), room.memberIDs.contains(player) else { throw notIn }
        return (roomID, room)
    }

    /// Locks a room by code (under the caller's transaction) and returns its id.
    private func lockRoom(code: String) throws -> Int64? {
        try db.query("SELECT id FROM rooms WHERE code = \(code) FOR UPDATE").first.map { try $0.int64("id") }
    }

    /// Removes members (the room's row locked by the caller), passes the host role on,
    /// deletes an empty room, and announces the result. Returns the room after.
    private func removeMembers(_ players: [PlayerID], from roomID: Int64, nowMs: Int64, outbox: Outbox) throws -> Room {
        let before = try room(id: roomID)!
        try db.query("""
            DELETE FROM room_members WHERE room_id = \(roomID)
               AND player_id = ANY(\(PGArray(players.map { Optional($0) }))::uuid[])
            """)
        let remaining = before.members.filter { !players.contains($0.id) }
        guard let heir = remaining.first else {
            try db.query("DELETE FROM rooms WHERE id = \(roomID)")
            var closed = before
            closed.members = []
            closed.state = .closed
            // Nobody is left to hear a DELETE but those who just left (on other connections).
            announce(closed, type: "DELETE", nowMs: nowMs, to: players, into: outbox)
            return closed
        }
        if players.contains(before.host) {
            try db.query("UPDATE rooms SET host = \(heir.id)::uuid WHERE id = \(roomID)")
        }
        let after = try room(id: roomID)!
        announce(after, type: "UPDATE", nowMs: nowMs, to: after.memberIDs + players, into: outbox)
        return after
    }

    /// A room's record, or nil when there is no such room.
    func room(id: Int64) throws -> Room? {
        let rows = try db.query("""
            SELECT r.code, r.bank_id, b.slug AS bank, r.host::text AS host, r.questions, r.answer_ms, r.max_players,
                   r.duel_id::text AS duel, r.games,
                   m.player_id::text AS member, p.username, m.gone_since IS NULL AS connected
              FROM rooms r JOIN banks b ON b.id = r.bank_id
              LEFT JOIN room_members m ON m.room_id = r.id
              LEFT JOIN players p ON p.id = m.player_id
             WHERE r.id = \(id)
             ORDER BY m.joined_at, m.player_id
            """)
        guard let first = rows.first else { return nil }
        // Whether the room's last game is still being played, from its duel's row: a statement
        // of its own, since on Citus the rooms sit on the coordinator and duels on their shards.
        var playing = false
        if let duel = first["duel"] {
            playing = try db.query("SELECT state <> 'finished' AS live FROM duels WHERE id = \(duel)::uuid")
                .first?.bool("live") ?? false
        }
        let members = try rows.compactMap { row -> Room.Member? in
            guard let id = row["member"] else { return nil }
            return Room.Member(id: id, username: try row.string("username"), connected: try row.bool("connected"))
        }
        return Room(
            code: try first.string("code"), bankID: try first.int("bank_id"), bank: try first.string("bank"),
            host: try first.string("host"),
            questions: try first.int("questions"), answerMs: try first.int("answer_ms"),
            maxPlayers: try first.int("max_players"), members: members,
            state: playing ? .playing : .open, duelID: first["duel"], games: try first.int("games"))
    }

    /// Sends the room's `room` event to its members (or `to`), at commit.
    /// Puts the room's `rooms` event for its members (or `to`) in `outbox`; the room's code is the
    /// topic, so a receiver keeps only the newest state.
    private func announce(_ room: Room, type: String, nowMs: Int64, to: [PlayerID]? = nil, into outbox: Outbox) {
        outbox.add(to ?? room.memberIDs, room.event(type: type, nowMs: nowMs), topic: "room:" + room.code)
    }
}
