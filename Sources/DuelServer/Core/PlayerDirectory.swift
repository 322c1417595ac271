import DuelCore

/// Who is connected here: the connections of each signed-in player, the connections
/// per client address, and the players also connected on another instance. Pure and
/// owned by the core (lws thread only); the connections themselves live in the core.
struct PlayerDirectory {
    private var byPlayer: [PlayerID: Set<UInt64>] = [:]
    private var byAddress: [String: Int] = [:]
    /// Players held here who are also connected on another instance (their duels'
    /// events must be announced: ``DuelBook/needsAnnouncement(_:isLocal:shared:)``).
    private(set) var shared = Set<PlayerID>()

    /// Signed-in players with at least one connection here.
    var playerCount: Int { byPlayer.count }
    var players: Dictionary<PlayerID, Set<UInt64>>.Keys { byPlayer.keys }

    func isLocal(_ player: PlayerID) -> Bool { byPlayer[player] != nil }
    func connections(of player: PlayerID) -> Set<UInt64> { byPlayer[player] ?? [] }
    func connections(from address: String) -> Int { byAddress[address] ?? 0 }

    mutating func opened(address: String) {
        byAddress[address, default: 0] += 1
    }

    mutating func closed(address: String) {
        let left = (byAddress[address] ?? 1) - 1
        byAddress[address] = left > 0 ? left : nil
    }

    /// The connection now speaks for `player`. Returns true when it is the player's
    /// first connection here.
    @discardableResult
    mutating func attach(_ connection: UInt64, to player: PlayerID) -> Bool {
        let first = byPlayer[player] == nil
        byPlayer[player, default: []].insert(connection)
        return first
    }

    /// The connection no longer speaks for `player`. Returns true when it was the
    /// player's last connection here (they are no longer held here, nor shared).
    @discardableResult
    mutating func detach(_ connection: UInt64, from player: PlayerID) -> Bool {
        guard var ids = byPlayer[player] else { return false }
        ids.remove(connection)
        guard ids.isEmpty else {
            byPlayer[player] = ids
            return false
        }
        byPlayer[player] = nil
        shared.remove(player)
        return true
    }

    /// Only for players held here: every instance hears every `presence_shared`, and a late
    /// answer may arrive after the player's last connection here closed.
    mutating func markShared(_ player: PlayerID) {
        guard byPlayer[player] != nil else { return }
        shared.insert(player)
    }
}
