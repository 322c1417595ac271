/// The loop's two libev timers: the one armed for the handler's earliest deadline, and the
/// liveness sweep's, every second.
struct LoopTimers {
    var wakeUp: UnsafeMutableRawPointer?
    var wakeUpDueMs = Int64.max
    var sweep: UnsafeMutableRawPointer?
}
