/// When to ping a quiet connection and when to give up on it (PROTOCOL.md: a peer silent
/// for 30 s is dropped). Pure: the sweep passes the clock.
///
/// Not lws's own validity timers (`retry_and_idle_policy`): lws 4.1.6 keeps every timer of
/// a service thread in one sorted linked list, and each received message re-inserts the
/// connection's timer by walking that list from its head. At 16,000 connections the walks
/// took the whole loop (perf: 89 % in `lws_dll2_add_sorted`), accepts stalled, pongs went
/// unread, and every connection was hung up at once. A sweep over the connections once a
/// second costs microseconds per thousand and nothing per message.
struct Liveness {
    enum Verdict: Equatable {
        case alive
        /// Send one ping: the peer has been quiet for `pingAfterMs`.
        case ping
        /// Quiet for `hangupAfterMs` (the ping went unanswered): drop it.
        case hangUp
    }

    let pingAfterMs: Int64
    let hangupAfterMs: Int64

    /// `pinged`: a ping went out since the peer was last heard from.
    func verdict(lastHeardMs: Int64, pinged: Bool, nowMs: Int64) -> Verdict {
        let quiet = nowMs - lastHeardMs
        if quiet >= hangupAfterMs { return .hangUp }
        if quiet >= pingAfterMs && !pinged { return .ping }
        return .alive
    }
}
