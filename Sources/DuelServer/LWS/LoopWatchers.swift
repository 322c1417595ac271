/// The loop's libev watchers of the shim: the timer armed for the handler's earliest deadline,
/// the sweep's, every 100 ms (a tenth of the connections each: round-trip pings and liveness;
/// `ticks` picks the tenth), and the prepare
/// watcher that writes what a turn of the loop queued (``LWSServer/flushQueued()``).
struct LoopWatchers {
    var wakeUp: UnsafeMutableRawPointer?
    var wakeUpDueMs = Int64.max
    var sweep: UnsafeMutableRawPointer?
    var ticks = 0
    var flush: UnsafeMutableRawPointer?
}
