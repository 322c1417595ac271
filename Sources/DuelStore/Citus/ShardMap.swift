/// Which shard of `duels` a duel id falls in, so that a lane's transaction touches one shard
/// only (issue 24): on Citus, a group commit over duels of two shards is a distributed
/// transaction (two-phase commit), and its `FOR UPDATE` is refused outright.
///
/// Read once at start from `pg_dist_shard` (``load(_:)``). On plain Postgres there is one group.
/// If an operator later splits shards, the map is stale until a restart: a batch may then span
/// two shards, which Citus still commits correctly (as a distributed transaction), only slower.
public struct ShardMap: Sendable, Equatable {
    /// The lowest hash value of each shard, ascending (Citus's `shardminvalue`).
    public let lowerBounds: [Int32]
    /// Whether `duels` is distributed (a Citus coordinator), whatever its shard count.
    public let distributed: Bool

    /// One group: plain Postgres.
    public static let single = ShardMap(lowerBounds: [Int32.min], distributed: false)

    public init(lowerBounds: [Int32], distributed: Bool = true) {
        precondition(!lowerBounds.isEmpty)
        self.lowerBounds = lowerBounds.sorted()
        self.distributed = distributed
    }

    public var groups: Int { lowerBounds.count }

    /// The shard group of a duel id: the last shard whose lower bound is at most the id's hash.
    /// An id that is not a uuid (never stored) goes to group 0.
    public func group(of duel: String) -> Int {
        guard groups > 1, let bytes = PostgresHash.uuidBytes(duel) else { return 0 }
        let hash = PostgresHash.uuid(bytes)
        var low = 0
        var high = lowerBounds.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lowerBounds[mid] <= hash { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// The shards of `duels` on a Citus coordinator; ``single`` on plain Postgres.
    public static func load(_ connection: PGConnection) throws -> ShardMap {
        guard try CitusPlacement.isPlaced(connection) else { return .single }
        let bounds = try connection.query("""
            SELECT shardminvalue::int AS low FROM pg_dist_shard
             WHERE logicalrelid = 'duels'::regclass ORDER BY 1
            """).map { Int32(try $0.int("low")) }
        return ShardMap(lowerBounds: bounds.isEmpty ? [Int32.min] : bounds)
    }
}
