import DuelCore

/// The open connections of this instance by id, and who they speak for (``PlayerDirectory``).
/// Shared by the server's parts; lws thread only.
final class ConnectionTable: @unchecked Sendable {
    private var byID: [UInt64: Connection] = [:]
    /// Who is connected here (see ``PlayerDirectory``).
    var directory = PlayerDirectory()

    var count: Int { byID.count }
    var all: Dictionary<UInt64, Connection>.Values { byID.values }

    subscript(id: UInt64) -> Connection? { byID[id] }

    /// The open connections of `player` here, lazily: delivery walks them for every event
    /// batch, and an array built per call was an allocation per delivery on the lws thread.
    func connections(of player: PlayerID) -> some Sequence<Connection> {
        directory.connections(of: player).lazy.compactMap { [byID] in byID[$0] }
    }

    func opened(_ connection: Connection) {
        byID[connection.id] = connection
        directory.opened(address: connection.address)
    }

    func closed(_ connection: Connection) {
        byID[connection.id] = nil
        directory.closed(address: connection.address)
    }
}
