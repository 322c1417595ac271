import DuelCore

/// What happens to one client message before any operation runs: the rate limit, decoding,
/// and the sign-in check, in that order (PROTOCOL.md: an op that needs a login, sent before
/// one, is `unauthorized` even when its fields are wrong). Pure.
enum RequestGate {
    enum Verdict {
        /// Run the request.
        case dispatch(RequestEnvelope)
        /// Answer with this error and do nothing else.
        case refuse(ref: RequestRef?, ProtocolError)
        /// The connection floods: close it.
        case close
    }

    static func admit(_ text: [UInt8], limit: RateLimiter.Verdict, signedIn: Bool) -> Verdict {
        switch limit {
        case .allow: break
        case .refuse: return .refuse(ref: nil, ProtocolError(.rateLimited))
        case .close: return .close
        }
        switch ClientRequest.decode(text) {
        case .failure(let failure):
            if !signedIn, let op = failure.op.flatMap(Op.init(rawValue:)), !op.isAnonymous {
                return .refuse(ref: failure.ref, ProtocolError(.unauthorized))
            }
            return .refuse(ref: failure.ref, failure.error)
        case .success(let envelope):
            guard envelope.request.allowedAnonymously || signedIn else {
                return .refuse(ref: envelope.ref, ProtocolError(.unauthorized))
            }
            return .dispatch(envelope)
        }
    }
}
