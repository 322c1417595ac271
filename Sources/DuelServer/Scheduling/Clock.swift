import Glibc

/// The server's clock: wall time in ms since 1970 (deadlines are stored in this unit,
/// so every instance on one database must keep its clock synchronized, as NTP does).
enum Clock {
    static func nowMs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// A monotonic clock in µs, for intervals only (round trips: a wall-clock step must not
    /// make one negative or huge).
    static func monotonicUs() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000
    }
}
