extension PGConnection {
    /// Records that instance `id` is alive, and returns how many other instances
    /// heartbeated within `aliveWithinMs`. Rows of instances silent for an hour go.
    public func heartbeat(instance id: String, aliveWithinMs: Int64 = 3_000) throws -> Int {
        try query("""
            WITH beat AS (
                INSERT INTO instances (id) VALUES (\(id)) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
                RETURNING 1),
            gone AS (
                DELETE FROM instances WHERE heartbeat_at < now() - interval '1 hour' RETURNING 1)
            SELECT count(*) AS n FROM instances
             WHERE id <> \(id) AND heartbeat_at > now() - make_interval(secs => \(aliveWithinMs) / 1000.0)
            """)[0].int("n")
    }

    /// Removes instance `id` (a clean stop).
    public func retire(instance id: String) throws {
        try query("DELETE FROM instances WHERE id = \(id)")
    }
}
