import DuelCore
import DuelStore

/// Rooms, challenges and rematches (issue 12).
extension GameRequests {
    func roomCreate(_ connection: Connection, _ ref: RequestRef?, bank: String, questions: Int, answerMs: Int?, maxPlayers: Int) {
        let player = connection.player!
        let answer = answerMs ?? Int(configuration.duel.answerWindowMs)
        jobs.database(for: connection, delivering: { db, outbox -> JSONObject in
            ["room": try RoomRepository(db).createRoom(
                player: player, bank: bank, questions: questions, answerMs: answer, maxPlayers: maxPlayers,
                nowMs: Clock.nowMs(), outbox: outbox).json]
        }) { [self] connection, result in replies.answer(connection, ref, result) }
    }

    func roomJoin(_ connection: Connection, _ ref: RequestRef?, code: String) {
        let player = connection.player!
        jobs.database(for: connection, delivering: { db, outbox -> JSONObject in
            ["room": try RoomRepository(db).joinRoom(player: player, code: code, nowMs: Clock.nowMs(), outbox: outbox).json]
        }) { [self] connection, result in replies.answer(connection, ref, result) }
    }

    /// Leaving a room whose game is live forfeits that game too: a member who left the
    /// room is no longer waited for. The reply comes once the forfeit is stored, so the
    /// player is free for another game when they read it.
    func roomLeave(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        jobs.database(for: connection, delivering: { db, outbox in try RoomRepository(db).leaveRoom(player: player, nowMs: Clock.nowMs(), outbox: outbox) }) {
            [self] connection, result in
            switch result {
            case .success(let change):
                guard let duel = change.forfeit else {
                    if let connection { replies.reply(connection, ref, ["room": change.room.json]) }
                    return
                }
                delivery.submit(.forfeit(player: player, atMs: Clock.nowMs()), to: duel, for: connection) {
                    [self] connection, result in
                    if case .success(let update?) = result { delivery.apply(update) }
                    if let connection { replies.reply(connection, ref, ["room": change.room.json]) }
                }
            case .failure(let error):
                if let connection { replies.fail(connection, ref, replies.protocolError(error, on: connection)) }
            }
        }
    }

    func roomStart(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        let rules = configuration.duel
        jobs.database(for: connection, delivering: { db, outbox in
            try RoomRepository(db).startRoom(player: player, configuration: rules, nowMs: Clock.nowMs(), outbox: outbox)
        }) { [self] connection, result in
            started(connection, ref, result.map { change in
                (["duel_id": .string(change.started!.duelID), "room": change.room.json], change.started!, change.absent)
            })
        }
    }

    func challenge(_ connection: Connection, _ ref: RequestRef?, username: String, bank: String) {
        let player = connection.player!
        let ttl = configuration.social.challengeTtlMs
        let perMinute = configuration.social.challengesPerMinute
        let receivedPerMinute = configuration.social.challengesReceivedPerMinute
        jobs.database(for: connection, delivering: { db, outbox -> JSONObject in
            let made = try RoomRepository(db).challenge(
                from: player, username: username, bank: bank, ttlMs: ttl, perMinute: perMinute,
                receivedPerMinute: receivedPerMinute, nowMs: Clock.nowMs(), outbox: outbox)
            return ["challenge_id": .string(made.id), "challenge": made.json]
        }) { [self] connection, result in replies.answer(connection, ref, result) }
    }

    func challengeAccept(_ connection: Connection, _ ref: RequestRef?, id: String) {
        let player = connection.player!
        let rules = configuration.duel
        jobs.database(for: connection, delivering: { db, outbox in
            try RoomRepository(db).acceptChallenge(player: player, id: id, configuration: rules, nowMs: Clock.nowMs(), outbox: outbox)
        }) { [self] connection, result in
            started(connection, ref, result.map { accepted in
                (["duel_id": .string(accepted.update.duelID), "challenge": accepted.challenge.json], accepted.update,
                 accepted.absent)
            })
        }
    }

    func rematch(_ connection: Connection, _ ref: RequestRef?, duel: String) {
        let player = connection.player!
        let rules = configuration.duel
        let window = configuration.social.rematchWindowMs
        jobs.database(for: connection, delivering: { db, outbox in
            try RoomRepository(db).rematch(player: player, duel: duel, windowMs: window, configuration: rules, nowMs: Clock.nowMs(), outbox: outbox)
        }) { [self] connection, result in
            switch result {
            case .success(.offered(let expires)):
                if let connection {
                    replies.reply(connection, ref, ["state": "offered", "expires_at": .string(Timestamp.iso8601(ms: expires))])
                }
            case .success(.started(let update, let absent)):
                if let connection { replies.reply(connection, ref, ["state": "started", "duel_id": .string(update.duelID)]) }
                delivery.apply(update)
                startAbandonment(of: absent, in: update.duelID)
            case .failure(let error):
                if let connection { replies.fail(connection, ref, replies.protocolError(error, on: connection)) }
            }
        }
    }
}
