extension PlayerRepository {
    /// Records that instance `id` is alive, and returns how many other instances
    /// heartbeated within `aliveWithinMs`, and whether the row had to be created (at
    /// start, or after other instances reaped it as dead: ``reapDeadInstances(deadAfterMs:)``).
    public func heartbeat(instance id: String, aliveWithinMs: Int64 = 3_000) throws -> (peers: Int, created: Bool) {
        // `excluded.heartbeat_at` is the column's default, now(): Citus refuses a function call
        // in an upsert's SET.
        let row = try db.query("""
            WITH beat AS (
                INSERT INTO instances (id) VALUES (\(id)) ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
                RETURNING (xmax = 0) AS created)
            SELECT (SELECT count(*) FROM instances
                     WHERE id <> \(id) AND heartbeat_at > now() - make_interval(secs => \(aliveWithinMs) / 1000.0)) AS n,
                   (SELECT created FROM beat) AS created
            """)[0]
        return (try row.int("n"), try row.bool("created"))
    }

    /// A clean stop: instance `id` is marked dead at once, so that the next reap (by
    /// any live instance, or this one's successor) removes its presence rows and queue
    /// entries and reports its players gone from their duels, as after a crash.
    public func retire(instance id: String) throws {
        try db.query("UPDATE instances SET heartbeat_at = '-infinity' WHERE id = \(id)")
    }
}
