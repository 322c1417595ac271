import DuelCore

/// The login throttle, kept in `login_failures` (migration 007) so that N instances
/// share one count.
extension PlayerRepository {
    /// A login attempt as it arrives: refused while the username or the address has too
    /// many recent failures; otherwise counted against both (as a failure until
    /// ``loginSucceeded(username:)`` clears it) and answered with the credentials to
    /// verify. Advisory locks on the two keys make concurrent attempts, from any
    /// instance, count one after the other. Keys use the lookup's own `lower()`.
    public func loginAttempt(username: String, address: String, limits: LoginLimits) throws -> LoginAttempt {
        try db.transaction { db in
            try db.query("""
                SELECT pg_advisory_xact_lock(hashtext('u:' || lower(\(username)))),
                       pg_advisory_xact_lock(hashtext('a:' || \(address)))
                """)
            let row = try db.query("""
                WITH counted AS (
                    SELECT (SELECT count(*) FROM login_failures WHERE key = 'u:' || lower(\(username))
                               AND at > now() - make_interval(secs => \(limits.windowSeconds))) AS by_name,
                           (SELECT count(*) FROM login_failures WHERE key = 'a:' || \(address)
                               AND at > now() - make_interval(secs => \(limits.windowSeconds))) AS by_address),
                counting AS (
                    INSERT INTO login_failures (key)
                    SELECT k FROM counted, unnest(ARRAY['u:' || lower(\(username)), 'a:' || \(address)]) AS k
                     WHERE by_name < \(limits.perUsername) AND by_address < \(limits.perAddress)
                    RETURNING 1)
                SELECT by_name < \(limits.perUsername) AND by_address < \(limits.perAddress) AS allowed,
                       p.id::text AS id, p.password_hash
                  FROM counted LEFT JOIN players p ON lower(p.username) = lower(\(username))
                """)[0]
            guard try row.bool("allowed") else { return .throttled }
            guard let id = row.optionalString("id") else { return .proceed(nil) }
            return .proceed((id, try row.string("password_hash")))
        }
    }

    /// The password was right: the username's failures (this attempt's included) go.
    public func loginSucceeded(username: String) throws {
        try db.query("DELETE FROM login_failures WHERE key = 'u:' || lower(\(username))")
    }

    /// Forgets failures older than the window (the health job, every second).
    public func forgetOldLoginFailures(windowSeconds: Int) throws {
        try db.query("DELETE FROM login_failures WHERE at < now() - make_interval(secs => \(windowSeconds))")
    }
}
