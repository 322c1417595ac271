/// The loop's two libev timers: the one armed for the handler's earliest deadline, and the
/// sweep's, every 100 ms (round-trip pings; liveness every tenth tick).
struct LoopTimers {
    var wakeUp: UnsafeMutableRawPointer?
    var wakeUpDueMs = Int64.max
    var sweep: UnsafeMutableRawPointer?
    var ticks = 0
}
