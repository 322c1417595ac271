import DuelCore
import Foundation

/// Challenges by name (migration 012): made, accepted, declined, listed, expired.
/// Each change puts the challenge's new state for both players in the caller's ``Outbox``.
extension RoomRepository {
    /// `challenge {username, bank}`. A second challenge of the same player in the same bank
    /// while one is pending returns the pending one. At most `perMinute` new challenges per
    /// challenger in any minute, and at most `receivedPerMinute` per target from everyone
    /// (`rate_limited`, nothing stored): they notify their target, so they must not become a way
    /// to spam, neither from one account nor from many fresh ones.
    public func challenge(
        from player: PlayerID, username: String, bank slug: String, ttlMs: Int64, perMinute: Int,
        receivedPerMinute: Int = 10, nowMs: Int64, outbox: Outbox
    ) throws -> Challenge {
        try outbox.transaction(on: db) { db in
            guard let target = try db.query("""
                SELECT id::text AS id FROM players WHERE lower(username) = lower(\(username)) AND disabled_at IS NULL
                """).first.map({ try $0.string("id") }) else { throw StoreError(.unknownPlayer) }
            if target == player { throw StoreError(.badRequest, "username: you cannot challenge yourself") }
            guard let bank = try db.query("SELECT id FROM banks b WHERE slug = \(slug) AND \(unsafeRaw: BankSummary.playable("b", by: player))").first else {
                throw StoreError(.unknownBank)
            }
            let bankID = try bank.int("id")
            // Serializes the challenger's requests and those to the target, so the rate counts
            // below are exact (both locked in id order: no deadlock between two players).
            try PlayerRepository(db).lockPlayers([player, target])
            if let pending = try db.query("""
                SELECT \(unsafeRaw: Challenge.columns) FROM challenges c \(unsafeRaw: Challenge.joins)
                 WHERE c.from_player = \(player)::uuid AND c.to_player = \(target)::uuid AND c.bank_id = \(bankID)
                   AND c.state = 'pending' AND c.expires_at > now()
                """).first {
                return try Challenge(row: pending)
            }
            let recent = try db.query("""
                SELECT count(*) AS n FROM challenges
                 WHERE from_player = \(player)::uuid AND created_at > now() - interval '1 minute'
                """)[0].int("n")
            if recent >= perMinute {
                throw StoreError(.rateLimited, "at most \(perMinute) challenges a minute")
            }
            let received = try db.query("""
                SELECT count(*) AS n FROM challenges
                 WHERE to_player = \(target)::uuid AND created_at > now() - interval '1 minute'
                """)[0].int("n")
            if received >= receivedPerMinute {
                throw StoreError(.rateLimited, "that player has received too many challenges; try again in a minute")
            }
            let id = UUID().uuidString.lowercased()
            try db.query("""
                INSERT INTO challenges (id, from_player, to_player, bank_id, expires_at)
                VALUES (\(id)::uuid, \(player)::uuid, \(target)::uuid, \(bankID),
                        now() + make_interval(secs => \(ttlMs) / 1000.0))
                """)
            let made = try challenge(id: id)!
            outbox.add(made.players, made.event(type: "INSERT", nowMs: nowMs), topic: made.topic)
            // And a stored notification for the target (issue 14): their bell shows it later too.
            try ProgressRepository(db).notify(made.to.id, kind: "challenge_received", into: outbox, [
                "challenge_id": .string(made.id), "from": .string(made.from.username), "bank": .string(made.bank),
            ])
            return made
        }
    }

    /// `challenge_accept {challenge_id}`: only its target, while pending and unexpired;
    /// starts an unrated two-player game (challenger first).
    public func acceptChallenge(
        player: PlayerID, id: String, configuration: DuelConfiguration, nowMs: Int64, outbox: Outbox
    ) throws -> (challenge: Challenge, update: DuelUpdate, absent: [PlayerID]) {
        try outbox.transaction(on: db) { db in
            let found = try lockPending(id: id, player: player, asTarget: true)
            // The accepter first: their own state decides before the challenger's.
            try checkFree([player, found.from.id], requester: player)
            // The quiz may have been deleted or unpublished since the challenge was made.
            try QuizRepository(db).checkPlayable(found.bankID, by: [found.from.id])
            let created = try DuelRepository(db).createGames(
                bankID: found.bankID, games: [[found.from.id, player]], mode: .challenge, configuration: configuration,
                nowMs: nowMs)[0]
            try db.query("""
                UPDATE challenges SET state = 'accepted', duel_id = \(created.update.duelID)::uuid WHERE id = \(id)::uuid
                """)
            let accepted = try challenge(id: id)!
            outbox.add(accepted.players, accepted.event(type: "UPDATE", nowMs: nowMs), topic: accepted.topic)
            return (accepted, created.update, try PlayerRepository(db).absent(accepted.players))
        }
    }

    /// `challenge_decline {challenge_id}`: its target declines, or its challenger withdraws it.
    public func declineChallenge(player: PlayerID, id: String, nowMs: Int64, outbox: Outbox) throws -> Challenge {
        try outbox.transaction(on: db) { db in
            _ = try lockPending(id: id, player: player, asTarget: false)
            try db.query("UPDATE challenges SET state = 'declined' WHERE id = \(id)::uuid")
            let declined = try challenge(id: id)!
            outbox.add(declined.players, declined.event(type: "UPDATE", nowMs: nowMs), topic: declined.topic)
            return declined
        }
    }

    /// `challenges {}`: the player's pending challenges, sent and received, newest first.
    public func pendingChallenges(player: PlayerID) throws -> [Challenge] {
        try db.query("""
            SELECT \(unsafeRaw: Challenge.columns) FROM challenges c \(unsafeRaw: Challenge.joins)
             WHERE (c.to_player = \(player)::uuid OR c.from_player = \(player)::uuid)
               AND c.state = 'pending' AND c.expires_at > now()
             ORDER BY c.created_at DESC LIMIT 100
            """).map(Challenge.init(row:))
    }

    /// Pending challenges past their time become expired, with an UPDATE to both players.
    /// Any instance may run it; the UPDATE's row locks make each expiry happen once.
    @discardableResult
    public func expireChallenges(nowMs: Int64, outbox: Outbox) throws -> Int {
        try outbox.transaction(on: db) { db in
            let expired = try db.query("""
                WITH due AS (
                    UPDATE challenges SET state = 'expired'
                     WHERE id IN (SELECT id FROM challenges WHERE state = 'pending' AND expires_at <= now()
                                   LIMIT 500 FOR UPDATE SKIP LOCKED)
                    RETURNING *)
                SELECT \(unsafeRaw: Challenge.columns) FROM due c \(unsafeRaw: Challenge.joins)
                """).map(Challenge.init(row:))
            for challenge in expired {
                outbox.add(challenge.players, challenge.event(type: "UPDATE", nowMs: nowMs), topic: challenge.topic)
                // The challenger hears that nobody took it up.
                try ProgressRepository(db).notify(challenge.from.id, kind: "challenge_expired", into: outbox, [
                    "challenge_id": .string(challenge.id), "to": .string(challenge.to.username),
                    "bank": .string(challenge.bank),
                ])
            }
            return expired.count
        }
    }

    /// Locks a pending challenge of `player` (its target, or with `asTarget` false either
    /// side). Unknown, not theirs, or no longer pending: `unknown_challenge`; past its
    /// time: `challenge_expired` (the expiry job announces it).
    private func lockPending(id: String, player: PlayerID, asTarget: Bool) throws -> Challenge {
        guard UUIDText.isValid(id) else { throw StoreError(.unknownChallenge) }
        guard let row = try db.query("""
            SELECT state, expires_at <= now() AS due, from_player::text AS from_id, to_player::text AS to_id
              FROM challenges WHERE id = \(id)::uuid FOR UPDATE
            """).first else { throw StoreError(.unknownChallenge) }
        let target = try row.string("to_id"), challenger = try row.string("from_id")
        guard target == player || (!asTarget && challenger == player) else { throw StoreError(.unknownChallenge) }
        let state = try row.string("state")
        let due = try row.bool("due")
        if state == "expired" || (state == "pending" && due) { throw StoreError(.challengeExpired) }
        guard state == "pending" else { throw StoreError(.unknownChallenge, "that challenge was already \(state)") }
        return try challenge(id: id)!
    }

    func challenge(id: String) throws -> Challenge? {
        try db.query("""
            SELECT \(unsafeRaw: Challenge.columns) FROM challenges c \(unsafeRaw: Challenge.joins) WHERE c.id = \(id)::uuid
            """).first.map(Challenge.init(row:))
    }
}
