import DuelCore
import DuelStore

/// What other instances (and this one) announce on the LISTEN connection besides duel
/// events: sessions that ended, players also connected elsewhere, queues a bank left.
extension DuelServerCore {
    /// Sessions ended by a logout or by expiry, on any instance (NOTIFY `sessions_ended`,
    /// payload token hashes in hex, comma-separated): close the sockets still using them.
    func sessionsEndedNotified(_ payload: String) {
        // Decoded once: hex-encoding every connection's hash instead cost some 35 allocations
        // per connection on the lws thread, for every logout of every instance.
        let ended = Set(payload.split(separator: ",").compactMap { Tokens.bytes(hex: $0) })
        guard !ended.isEmpty else { return }
        for connection in connections.values {
            guard let hash = connection.tokenHash, ended.contains(hash) else { continue }
            connection.tokenHash = nil
            transport.close(connection, .policyViolation, "signed out: the session ended")
        }
    }

    /// An operator asked to end a duel (NOTIFY `duel_commands`, payload the duel id, from
    /// `ops.end_duel`). Every instance hears it; the first to apply it ends the duel and the
    /// others find it over. The health job picks up requests nobody heard.
    func duelCommandsNotified(_ duel: String) {
        endDuel(duel)
    }

    func endDuel(_ duel: String) {
        duelInput(for: nil, duel: duel, .end(atMs: Clock.nowMs())) { core, _, result in
            switch result {
            case .success(let update?):
                core.apply(update)
                if update.events.last?.kind == .complete {
                    core.logger.notice("duel ended by an operator", metadata: [LogKey.duel: .string(duel)])
                }
            case .success(nil), .failure(is StoreError):
                break  // already over, or no such duel: nothing left to do
            case .failure(let error):
                // The health job retries the pending request.
                if !((error as? PGError)?.isConnectionFailure ?? false) {
                    core.logger.warning("ending a duel failed", metadata: [LogKey.duel: .string(duel), "error": "\(error)"])
                }
                return
            }
            core.database(for: nil, priority: .background, { db in try db.markDuelEndsDone(duel: duel) }) { _, _, _ in }
        }
    }

    /// Another instance holds a connection of this player too (NOTIFY `presence_shared`):
    /// their duels' events must be announced even when this instance holds both players.
    func presenceSharedNotified(_ player: String) {
        directory.markShared(player)
    }

    /// Players of this instance whose bank can no longer fill a duel were taken out of its
    /// queue (NOTIFY `queue_evictions`, payload `<slug>:<player>,…`): tell them.
    func queueEvictionsNotified(_ payload: String) {
        guard let colon = payload.firstIndex(of: ":") else { return }
        let slug = payload[..<colon]
        for player in payload[payload.index(after: colon)...].split(separator: ",") {
            for id in directory.connections(of: String(player)) {
                guard let connection = connections[id] else { continue }
                fail(connection, nil, ProtocolError(
                    .bankEmpty, "bank '\(slug)' has too few active questions for a duel; you left its queue"))
            }
        }
    }
}
