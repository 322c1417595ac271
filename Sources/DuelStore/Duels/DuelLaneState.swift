import DuelCore

/// What a duel lane keeps between its transactions: the engine states it last committed
/// (``DuelCache``) and whether its writes announce events with NOTIFY (only while other
/// instances run: see migration 006). The lane's, not its connection's: a lane may reopen its
/// connection, and a pool connection has no lane.
public struct DuelLaneState: Sendable {
    var cache = DuelCache()
    /// Whether committed events are announced to other instances.
    public var announces: Bool
    /// Whether the database is a Citus coordinator: the lane then writes a batch in statements
    /// Citus sends to one shard each (``DuelWrites``).
    public var distributed: Bool
    /// Rounds whose ended games could not be settled right after their commit (on Citus): their
    /// records wait for the sweep.
    public internal(set) var unsettled = 0
    /// Whether rounds leave the progress of the games they end to the lane's ``ProgressSettler``
    /// (plain Postgres, events not announced); set by the lane per round.
    var progressApart = false
    /// What the rounds since the lane last took it recorded for the progress settler.
    var owedProgress = DuelSettlements()
    /// Whether rounds store every event they make, not only a game's `complete` (``DuelWrites``).
    public var storesEveryEvent: Bool

    public init(announces: Bool = true, distributed: Bool = false, storesEveryEvent: Bool = false) {
        self.announces = announces
        self.distributed = distributed
        self.storesEveryEvent = storesEveryEvent
    }

    /// The engine state of `duel` this lane committed at `version`, if it is still that.
    public func cachedState(of duel: String, version: Int) -> Duel? {
        cache.state(of: duel, version: version)
    }
}
