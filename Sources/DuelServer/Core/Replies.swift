import DuelCore
import DuelStore
import Logging

/// Sends replies and errors to a connection, counts errors by code, and translates a failed
/// job into the protocol's error (logging the unexpected ones with their context).
final class Replies: @unchecked Sendable {
    private let transport: any Transport
    private let metrics: Metrics
    private let logger: Logger

    init(transport: any Transport, metrics: Metrics, logger: Logger) {
        self.transport = transport
        self.metrics = metrics
        self.logger = logger
    }

    func send(_ connection: Connection, _ text: String) {
        transport.send(connection, text)
    }

    func reply(_ connection: Connection, _ ref: RequestRef?, _ data: JSONObject = [:]) {
        send(connection, ServerMessage.reply(ref: ref, data: data))
    }

    /// The `answer` op's reply data: one shape whether the verdict came at once or at the
    /// question's settle (``HeldReply``).
    static func answered(correct: Bool, points: Int) -> JSONObject {
        ["correct": .bool(correct), "points": .number(points)]
    }

    func fail(_ connection: Connection, _ ref: RequestRef?, _ error: ProtocolError) {
        metrics.errorsByCode[error.code.rawValue, default: 0] += 1
        send(connection, ServerMessage.error(ref: ref, error))
    }

    /// Replies with `result`'s data, or its error translated.
    func answer(_ connection: Connection?, _ ref: RequestRef?, _ result: Result<JSONObject, Error>) {
        guard let connection else { return }
        switch result {
        case .success(let data): reply(connection, ref, data)
        case .failure(let error): fail(connection, ref, protocolError(error, on: connection))
        }
    }

    /// Translates a failure of a database or hashing job into the protocol's error.
    /// An unexpected failure is logged with the connection and player it served.
    func protocolError(_ error: Error, on connection: Connection? = nil, duel: String? = nil) -> ProtocolError {
        if let store = error as? StoreError { return store.error }
        if let pg = error as? PGError, pg.isConnectionFailure { return ProtocolError(.unavailable) }
        logger.error("request failed", metadata: Self.logContext(connection, duel: duel).merging(["error": "\(error)"]) { $1 })
        return ProtocolError(.internal)
    }

    /// `conn.id`, `player.id` and `duel.id` for a log call, where known.
    static func logContext(_ connection: Connection?, duel: String? = nil, player: String? = nil) -> Logger.Metadata {
        var metadata: Logger.Metadata = [:]
        if let connection {
            metadata[LogKey.connection] = "\(connection.id)"
            if let player = connection.player { metadata[LogKey.player] = .string(player) }
        }
        if let player { metadata[LogKey.player] = .string(player) }
        if let duel { metadata[LogKey.duel] = .string(duel) }
        return metadata
    }
}
