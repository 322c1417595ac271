/// Duel deadlines and the periodic jobs' next runs in one ``DeadlineSchedule``, with the
/// loop's one timer kept armed for the earliest. lws thread only.
final class DeadlineTimer: @unchecked Sendable {
    private var schedule = DeadlineSchedule()
    private let transport: any Transport
    /// Keys whose owner runs its own work when they are due (``QueueJoins``), by key.
    private var handlers: [String: () -> Void] = [:]

    init(transport: any Transport) {
        self.transport = transport
    }

    var count: Int { schedule.count }

    /// Sets `key`'s deadline (see ``DeadlineSchedule/schedule(_:atMs:replace:)``) and
    /// makes sure the loop's timer wakes up for it.
    func schedule(_ key: String, atMs dueMs: Int64, replace: Bool = false) {
        schedule.schedule(key, atMs: dueMs, replace: replace)
        rearm()
    }

    /// See ``DeadlineSchedule/retry(_:atMs:firstDueMs:)``.
    func retry(_ key: String, atMs dueMs: Int64, firstDueMs: Int64) {
        schedule.retry(key, atMs: dueMs, firstDueMs: firstDueMs)
    }

    func cancel(_ key: String) {
        schedule.cancel(key)
    }

    /// The keys due at `nowMs` with when each was due, taken out of the schedule (the caller re-arms with ``rearm()``
    /// once it has scheduled what comes next).
    func popDue(nowMs: Int64) -> [(key: String, dueMs: Int64)] {
        schedule.popDueEntries(nowMs: nowMs)
    }

    /// Makes `key`, when due, run `handler` (``fireHandler(of:)``) instead of the periodic
    /// jobs' or a duel's work.
    func handle(_ key: String, with handler: @escaping () -> Void) {
        handlers[key] = handler
    }

    /// Runs the handler of a due `key`; false when it has none.
    func fireHandler(of key: String) -> Bool {
        guard let handler = handlers[key] else { return false }
        handler()
        return true
    }

    func rearm() {
        if let next = schedule.nextDueMs { transport.wakeUp(atMs: next) }
    }
}
