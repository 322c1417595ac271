import CLibWebSockets

/// What goes out to the WebSockets: messages queued by the handler, written at the end of the
/// loop's turn or at the writable callback, and the decided closes. On the lws thread.
extension LWSServer {
    /// Queues a text message; closes the connection when a slow reader lets too much pile up.
    func send(_ connection: Connection, _ text: String) {
        guard !connection.isClosed, connection.sending.pendingClose == nil,
              let wsi = connections.byID[connection.id]?.wsi, !closing(connection, wsi) else { return }
        connection.sending.bytes += text.utf8.count
        if connection.sending.bytes > limits.maxOutgoingBytes {
            connection.sending.messages.removeAll()
            connection.sending.head = 0
            close(connection, .policyViolation, "too slow to read")
            return
        }
        // Written at the end of this turn of the loop (``flushQueued()``), or by the writable
        // callback, which asks again while messages remain: only the first needs a turn.
        if !connection.hasOutgoing { connections.unflushed.append(connection.id) }
        connection.sending.messages.append(text)
    }

    /// Closes with `code` once the queued messages are out.
    func close(_ connection: Connection, _ code: CloseCode, _ reason: String) {
        guard connection.sending.pendingClose == nil, let wsi = connections.byID[connection.id]?.wsi else { return }
        connection.sending.pendingClose = (code, reason)
        lws_callback_on_writable(wsi)
    }

    /// Whether a close frame went to the peer (lws keeps its reason's length) or came from it:
    /// then nothing more is read from or written to it (RFC 6455 5.5.1).
    func closing(_ connection: Connection, _ wsi: OpaquePointer?) -> Bool {
        connection.sending.peerClosed || lws_get_close_length(wsi) != 0
    }

    /// Writes the queued messages (up to a bound) framed in one buffer and one send; see
    /// ``FrameBatch``. Messages are queued as the shared text of each event (no copy per
    /// recipient), and framing copies each once into the reused buffer. False when the socket
    /// failed. lws keeps what the kernel did not take and sends it first at the next writable
    /// callback, which it asks for itself.
    func writeQueued(_ connection: Connection, _ wsi: OpaquePointer) -> Bool {
        guard connection.hasOutgoing else { return true }
        batch.reset()
        while connection.hasOutgoing && batch.messages < 64 && batch.count < 65_536 {
            let message = connection.sending.messages[connection.sending.head]
            connection.sending.head += 1
            connection.sending.bytes -= message.utf8.count
            batch.appendText(message.utf8)
        }
        if connection.sending.head == connection.sending.messages.count {
            connection.sending.messages.removeAll(keepingCapacity: connection.sending.messages.count < 64)
            connection.sending.head = 0
        }
        let pre = batch.headroom
        let count = batch.count
        let sent = batch.withUnsafeMutableBytes { buffer in
            lws_write(wsi, buffer.baseAddress! + pre, count, LWS_WRITE_HTTP)  // LWS_WRITE_RAW: sent as is
        }
        return sent >= count
    }

    /// At the end of each turn of the loop (libev's prepare watcher, before it sleeps and
    /// polls): writes what the turn queued for each connection, in one send each.
    ///
    /// Through the writable callback every message cost two `epoll_ctl`s (lws adds POLLOUT, then
    /// takes it away) and a poll of its own, after the loop's collect interval (a sleep, so a
    /// wake-up more): at human pace that was most of a send's cost beside the send itself
    /// (bench/NOTES.md item 44). What must be ordered with the messages (a ping, a decided
    /// close) and bytes lws still holds from a partial send leave it to the writable callback.
    func flushQueued() {
        guard !connections.unflushed.isEmpty else { return }
        var ids: [UInt64] = []
        swap(&ids, &connections.unflushed)
        for id in ids {
            guard let (connection, wsi) = connections.byID[id], !connection.isClosed, connection.hasOutgoing else { continue }
            if closing(connection, wsi) {
                // Queued before a close went or came in this turn: it is not read any more.
                connection.sending.messages.removeAll()
                connection.sending.head = 0
                connection.sending.bytes = 0
                continue
            }
            // Also what keeps a write whole: with bytes already held, lws would append this write
            // and report only what it drained, which ``writeQueued(_:_:)`` takes for a failure.
            if connection.sending.pendingClose != nil || connection.liveness.pingDue || connection.probe.due
                || lws_partial_buffered(wsi) != 0 {
                lws_callback_on_writable(wsi)
                continue
            }
            guard writeQueued(connection, wsi) else {
                // Not inside a callback, so nothing to return -1 to: the socket's error closes it
                // at the next poll, and this timeout at the latest.
                lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, LWS_TO_KILL_ASYNC)
                continue
            }
            if connection.hasOutgoing { lws_callback_on_writable(wsi) }
        }
    }
}

/// The C callback of the loop's prepare watcher (`quizduel_ev_prepare` in the shim), on the lws thread.
func lwsFlushFired(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<LWSServer>.fromOpaque(owner).takeUnretainedValue().flushQueued()
}
