import CLibWebSockets

/// Reading a request's headers and peer, and closing with a reason: the small lws calls the
/// callback makes, on the lws thread.
extension LWSServer {
    func closeNow(_ wsi: OpaquePointer?, _ code: CloseCode, _ reason: String) -> Int32 {
        var bytes = Array(reason.utf8.prefix(120))
        bytes.withUnsafeMutableBufferPointer { buffer in
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code.rawValue)), buffer.baseAddress, buffer.count)
        }
        return -1
    }

    func header(_ wsi: OpaquePointer?, _ token: lws_token_indexes) -> String? {
        let length = lws_hdr_total_length(wsi, token)
        guard length > 0, length < 4_096 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return String(cString: buffer)
    }

    /// The socket's peer, or the client a trusted proxy names (``ClientAddress``).
    /// The upgrade request's headers are still readable in ESTABLISHED.
    func clientAddress(_ wsi: OpaquePointer?) -> String {
        let peer = peerAddress(wsi)
        guard !limits.trustedProxies.isEmpty, limits.trustedProxies.contains(peer) else { return peer }
        return ClientAddress.resolve(
            peer: peer, forwarded: customHeader(wsi, "forwarded:"),
            forwardedFor: header(wsi, WSI_TOKEN_X_FORWARDED_FOR), trusted: limits.trustedProxies)
    }

    func customHeader(_ wsi: OpaquePointer?, _ name: String) -> String? {
        let length = lws_hdr_custom_length(wsi, name, Int32(name.utf8.count))
        guard length > 0, length < 4_096 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), name, Int32(name.utf8.count)) >= 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes a ping frame with `payload` (at least one byte: lws 4.1.6 reports only non-empty
    /// pongs, RECEIVE_PONG). Negative when the write failed.
    func writePing(_ wsi: OpaquePointer?, _ payload: [UInt8]) -> Int32 {
        let pre = quizduel_lws_pre()
        var frame = [UInt8](repeating: 0, count: pre + payload.count)
        frame.replaceSubrange(pre..., with: payload)
        return frame.withUnsafeMutableBufferPointer { lws_write(wsi, $0.baseAddress! + pre, payload.count, LWS_WRITE_PING) }
    }

    func peerAddress(_ wsi: OpaquePointer?) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "unknown" }
        return String(cString: buffer)
    }
}
