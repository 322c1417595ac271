/// What the server's parts need of the socket layer: send, close, and the two wake-ups of the
/// loop. ``LWSServer`` is the real one; a part given a transport at init is testable without a
/// socket (a recording transport in the tests).
protocol Transport: AnyObject, Sendable {
    /// Queues a text message for the connection (lws thread).
    func send(_ connection: Connection, _ text: String)
    /// Closes the connection with `code` once its queued messages are out (lws thread).
    func close(_ connection: Connection, _ code: CloseCode, _ reason: String)
    /// Asks the loop to call the handler's `wake()` (any thread).
    func wake()
    /// Asks the loop to call the handler's `timerFired()` at `dueMs` or soon after (lws thread).
    func wakeUp(atMs dueMs: Int64)
}
