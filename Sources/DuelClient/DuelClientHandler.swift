/// Takes a connection's events on its loop's thread, in place of ``DuelClient``'s
/// reply continuations, event queue and transcript.
///
/// This is the load-test bots' light path: a frame reaches the handler as lws's
/// own bytes, with no copy, no parse, no lock and no Task wake-up, and the
/// handler answers with ``DuelClient/sendFromLoop(_:)`` on the same thread.
/// Every method is called on the loop's thread; the handler must not block it.
public protocol DuelClientHandler: AnyObject {
    func clientDidOpen(_ client: DuelClient)
    /// `frame` is valid only during the call. `receivedAtMicros` is on the monotonic clock.
    func client(_ client: DuelClient, didReceive frame: UnsafeRawBufferPointer, receivedAtMicros: UInt64)
    /// `code` is nil when the connection never opened (or could not be made).
    func client(_ client: DuelClient, didCloseWithCode code: UInt16?)
}
