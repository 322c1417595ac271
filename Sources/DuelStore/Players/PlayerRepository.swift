import DuelCore

/// Players and their sessions (issue 22): accounts, sessions, the login throttle, presence
/// across instances, instances' heartbeats, and the per-player locks that serialize the ops
/// giving players a game. Runs on the connection it is given and keeps no state.
public struct PlayerRepository {
    /// The connection every query runs on.
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    /// Creates a player; `username_taken` when the name exists in any letter case.
    public func createPlayer(username: String, passwordHash: String) throws -> PlayerID {
        do {
            return try db.query("""
                INSERT INTO players (username, password_hash) VALUES (\(username), \(passwordHash))
                RETURNING id::text AS id
                """)[0].string("id")
        } catch {
            if error.sqlState == PGError.Code.uniqueViolation { throw StoreError(.usernameTaken) }
            throw error
        }
    }

    /// The id and stored Argon2id hash for `username` (any letter case), if such a player exists.
    public func credentials(username: String) throws -> (id: PlayerID, passwordHash: String)? {
        guard let row = try db.query("""
            SELECT id::text AS id, password_hash FROM players WHERE lower(username) = lower(\(username))
            """).first else { return nil }
        return (try row.string("id"), try row.string("password_hash"))
    }

    /// Stores a session under the hash of its token; `account_disabled` for a banned player.
    /// Checked here, after the password, so the refusal tells nothing to someone without it,
    /// and in the same statement, so a ban racing a login cannot leave a session behind.
    public func createSession(player: PlayerID, tokenHash: [UInt8], lifetimeSeconds: Int) throws {
        let created = try db.query("""
            INSERT INTO sessions (token_hash, player_id, expires_at)
            SELECT \(PGBytes(tokenHash)), id, now() + make_interval(secs => \(lifetimeSeconds))
              FROM players WHERE id = \(player)::uuid AND disabled_at IS NULL
            RETURNING 1
            """)
        if created.isEmpty { throw StoreError(.accountDisabled) }
    }

    /// The player holding an unexpired session with this token hash.
    public func sessionPlayer(tokenHash: [UInt8]) throws -> PlayerID? {
        try db.query("""
            SELECT player_id::text AS id FROM sessions
             WHERE token_hash = \(PGBytes(tokenHash)) AND expires_at > now()
            """).first?.string("id")
    }

    /// Revokes a session (logout).
    /// Deletes the session and tells every instance (NOTIFY `sessions_ended`, payload the
    /// token hash in hex), so other sockets signed in with the token are closed everywhere.
    public func deleteSession(tokenHash: [UInt8]) throws {
        try db.query("""
            WITH gone AS (DELETE FROM sessions WHERE token_hash = \(PGBytes(tokenHash)) RETURNING token_hash)
            SELECT ops.announce_sessions_ended(array_agg(token_hash)) FROM gone
            """)
    }

    /// Deletes expired sessions and announces them like ``deleteSession(tokenHash:)``
    /// (100 hashes per NOTIFY, under Postgres's 8000-byte payload limit). Returns how many.
    @discardableResult
    public func endExpiredSessions() throws -> Int {
        try db.query("SELECT ops.purge_expired_sessions() AS n")[0].int("n")
    }

    /// The player's profile with ratings in every bank, or nil for an unknown id.
    public func profile(player: PlayerID) throws -> PlayerProfile? {
        guard UUIDText.isValid(player) else { return nil }
        guard let row = try db.query("""
            SELECT p.id::text AS id, p.username,
                   coalesce(sum(r.games), 0) AS games, coalesce(sum(r.wins), 0) AS wins,
                   coalesce(sum(r.losses), 0) AS losses, coalesce(sum(r.draws), 0) AS draws,
                   coalesce(sum(r.total_score), 0) AS total_score
              FROM players p LEFT JOIN ratings r ON r.player_id = p.id
             WHERE p.id = \(player)::uuid
             GROUP BY p.id
            """).first else { return nil }
        var ratings: [String: Int] = [:]
        for bank in try db.query("""
            SELECT b.slug, coalesce(r.rating, 1500) AS rating
              FROM banks b LEFT JOIN ratings r ON r.bank_id = b.id AND r.player_id = \(player)::uuid
             -- Matchmaking's banks, and any other the player has a rating in (players' quizzes
             -- would otherwise fill every profile).
             WHERE (\(unsafeRaw: BankSummary.inMatchmaking("b")) AND b.retired_at IS NULL) OR r.player_id IS NOT NULL
            """) {
            ratings[try bank.string("slug")] = Int(try bank.double("rating").rounded())
        }
        var profile = PlayerProfile(
            id: try row.string("id"), username: try row.string("username"), games: try row.int("games"),
            wins: try row.int("wins"), losses: try row.int("losses"), draws: try row.int("draws"),
            totalScore: try row.int64("total_score"), ratings: ratings)
        // A statement of its own: on Citus the one above runs on the player's shard, and a
        // function that reads tables cannot run inside a query on a shard.
        let progressText = try db.query("SELECT progress_json(\(player)::uuid)::text AS progress")[0].string("progress")
        if case .object(var progress) = try JSONParser.parse(progressText) {
            progress["time_zone"] = nil  // the player's own business: profile_update replies it
            profile.progress = progress
        }
        return profile
    }

    /// Serializes the ops that give players a game or a room (room ops, challenges,
    /// rematch, practice) per player, so two of them cannot both find a player free: the
    /// second waits, then sees the first's room or game. In id order, so two such ops on the
    /// same players cannot deadlock. `FOR NO KEY UPDATE` leaves foreign keys to the rows alone.
    func lockPlayers(_ players: [PlayerID]) throws {
        try db.query("""
            SELECT 1 FROM players WHERE id = ANY(\(PGArray(players.map { Optional($0) }))::uuid[])
             ORDER BY id FOR NO KEY UPDATE
            """)
    }
}
