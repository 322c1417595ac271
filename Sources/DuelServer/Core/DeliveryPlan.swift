/// What one connection gets of a run of a duel's stored events: each seq once, in order,
/// never past a gap. Pure: ``DuelServerCore/deliver(_:players:)`` computes it per
/// connection and carries it out (sends, then records `deliveredSeq`). It allocates
/// nothing: delivery runs for every event and every connection.
struct DeliveryPlan: Equatable {
    /// Indices into the events to send, in order (a run: sends stop at the first gap).
    var send: Range<Int> = 0..<0
    /// The connection's delivered seq after sending; nil when the duel completed and the
    /// connection's bookkeeping for it can go.
    var delivered: Int?
    /// Set when the events skip ahead of what the connection has: read it what it missed
    /// after this seq instead of sending past the gap.
    var gapAfter: Int?

    /// - Parameters:
    ///   - seqs: the events' seqs, increasing (one duel's), indexed from 0.
    ///   - delivered: the last seq this connection got (0 for none).
    ///   - completes: whether the run contains the duel's `complete` event.
    init<Seqs: RandomAccessCollection>(seqs: Seqs, delivered: Int, completes: Bool)
    where Seqs.Element == Int, Seqs.Index == Int {
        var last = delivered
        var first: Int?
        var end = 0
        for index in seqs.indices where seqs[index] > last {
            guard seqs[index] == last + 1 else {
                gapAfter = last
                break
            }
            if first == nil { first = index }
            end = index + 1
            last = seqs[index]
        }
        if let first { send = first..<end }
        self.delivered = completes && last == seqs.last ? nil : last
    }
}
