/// What one connection gets of a run of a duel's stored events: each seq once, in order,
/// never past a gap. Pure: ``DuelServerCore/deliver(_:players:)`` computes it per
/// connection and carries it out (sends, then records `deliveredSeq`).
struct DeliveryPlan: Equatable {
    /// Indices into the events to send, in order.
    var send: [Int] = []
    /// The connection's delivered seq after sending; nil when the duel completed and the
    /// connection's bookkeeping for it can go.
    var delivered: Int?
    /// Set when the events skip ahead of what the connection has: read it what it missed
    /// after this seq instead of sending past the gap.
    var gapAfter: Int?

    /// - Parameters:
    ///   - seqs: the events' seqs, increasing (one duel's).
    ///   - delivered: the last seq this connection got (0 for none).
    ///   - completes: whether the run contains the duel's `complete` event.
    init(seqs: [Int], delivered: Int, completes: Bool) {
        var last = delivered
        for (index, seq) in seqs.enumerated() where seq > last {
            guard seq == last + 1 else {
                gapAfter = last
                break
            }
            send.append(index)
            last = seq
        }
        self.delivered = completes && last == seqs.last ? nil : last
    }
}
