import DuelCore
import DuelStore

/// Rooms, challenges and rematches (issue 12): the requests, the `player_events` they
/// announce, and their periodic upkeep.
extension DuelServerCore {
    func roomCreate(_ connection: Connection, _ ref: RequestRef?, bank: String, questions: Int, answerMs: Int?, maxPlayers: Int) {
        let player = connection.player!
        let answer = answerMs ?? Int(configuration.duel.answerWindowMs)
        simple(connection, ref) { db in
            ["room": try db.createRoom(
                player: player, bank: bank, questions: questions, answerMs: answer, maxPlayers: maxPlayers,
                nowMs: Clock.nowMs()).json]
        }
    }

    func roomJoin(_ connection: Connection, _ ref: RequestRef?, code: String) {
        let player = connection.player!
        simple(connection, ref) { db in ["room": try db.joinRoom(player: player, code: code, nowMs: Clock.nowMs()).json] }
    }

    /// Leaving a room whose game is live forfeits that game too: a member who left the
    /// room is no longer waited for. The reply comes once the forfeit is stored, so the
    /// player is free for another game when they read it.
    func roomLeave(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        database(for: connection, { db in try db.leaveRoom(player: player, nowMs: Clock.nowMs()) }) { core, connection, result in
            switch result {
            case .success(let change):
                guard let duel = change.forfeit else {
                    if let connection { core.reply(connection, ref, ["room": change.room.json]) }
                    return
                }
                core.duelInput(for: connection, duel: duel, .forfeit(player: player, atMs: Clock.nowMs())) {
                    core, connection, result in
                    if case .success(let update?) = result { core.apply(update) }
                    if let connection { core.reply(connection, ref, ["room": change.room.json]) }
                }
            case .failure(let error):
                if let connection { core.fail(connection, ref, core.protocolError(error, on: connection)) }
            }
        }
    }

    func roomStart(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        let rules = configuration.duel
        database(for: connection, { db in
            try db.startRoom(player: player, configuration: rules, nowMs: Clock.nowMs())
        }) { core, connection, result in
            core.started(connection, ref, result.map { change in
                (["duel_id": .string(change.started!.duelID), "room": change.room.json], change.started!, change.absent)
            })
        }
    }

    func challenge(_ connection: Connection, _ ref: RequestRef?, username: String, bank: String) {
        let player = connection.player!
        let ttl = configuration.challengeTtlMs
        let perMinute = configuration.challengesPerMinute
        let receivedPerMinute = configuration.challengesReceivedPerMinute
        simple(connection, ref) { db in
            let made = try db.challenge(
                from: player, username: username, bank: bank, ttlMs: ttl, perMinute: perMinute,
                receivedPerMinute: receivedPerMinute, nowMs: Clock.nowMs())
            return ["challenge_id": .string(made.id), "challenge": made.json]
        }
    }

    func challengeAccept(_ connection: Connection, _ ref: RequestRef?, id: String) {
        let player = connection.player!
        let rules = configuration.duel
        database(for: connection, { db in
            try db.acceptChallenge(player: player, id: id, configuration: rules, nowMs: Clock.nowMs())
        }) { core, connection, result in
            core.started(connection, ref, result.map { accepted in
                (["duel_id": .string(accepted.update.duelID), "challenge": accepted.challenge.json], accepted.update,
                 accepted.absent)
            })
        }
    }

    func rematch(_ connection: Connection, _ ref: RequestRef?, duel: String) {
        let player = connection.player!
        let rules = configuration.duel
        let window = configuration.rematchWindowMs
        database(for: connection, { db in
            try db.rematch(player: player, duel: duel, windowMs: window, configuration: rules, nowMs: Clock.nowMs())
        }) { core, connection, result in
            switch result {
            case .success(.offered(let expires)):
                if let connection {
                    core.reply(connection, ref, ["state": "offered", "expires_at": .string(Timestamp.iso8601(ms: expires))])
                }
            case .success(.started(let update, let absent)):
                if let connection { core.reply(connection, ref, ["state": "started", "duel_id": .string(update.duelID)]) }
                core.apply(update)
                core.startAbandonment(of: absent, in: update.duelID)
            case .failure(let error):
                if let connection { core.fail(connection, ref, core.protocolError(error, on: connection)) }
            }
        }
    }

    /// Replies to a request that started a game, then delivers the game's `init` (the
    /// reply first, as for `practice`).
    func started(
        _ connection: Connection?, _ ref: RequestRef?, _ result: Result<(JSONObject, DuelUpdate, [PlayerID]), Error>
    ) {
        switch result {
        case .success(let (data, update, absent)):
            if let connection { reply(connection, ref, data) }
            apply(update)
            startAbandonment(of: absent, in: update.duelID)
        case .failure(let error):
            if let connection { fail(connection, ref, protocolError(error, on: connection)) }
        }
    }

    /// A game that began with players no instance holds (a room member or a challenger who
    /// went away): their abandonment clocks start now, as if they had just disconnected.
    func startAbandonment(of players: [PlayerID], in duel: String) {
        let now = Clock.nowMs()
        for player in players {
            duelInput(for: nil, duel: duel, .disconnected(player: player, atMs: now)) { core, _, result in
                if case .success(let update?) = result { core.apply(update) }
            }
        }
    }

    /// NOTIFY `player_events` from any instance, this one included: send the event to the
    /// connections held here of the players it names.
    func playerEventsNotified(_ payload: String) {
        guard let note = PlayerEventNotification(payload: payload) else { return }
        for player in note.players {
            for id in directory.connections(of: player) {
                guard let connection = connections[id] else { continue }
                send(connection, note.text)
            }
        }
    }

    /// After a sign-in's reply: the player's room, if any, and the challenges waiting for
    /// them, as events (a challenge made while they were away reaches them here).
    func sendWaiting(_ waiting: WaitingSocial, to connection: Connection) {
        let now = Clock.nowMs()
        if let room = waiting.room { send(connection, room.event(type: "UPDATE", nowMs: now)) }
        for challenge in waiting.challenges.reversed() { send(connection, challenge.event(type: "INSERT", nowMs: now)) }
    }

    /// Expires challenges and rematch offers, and lets room members gone longer than the
    /// abandonment delay leave. Every instance runs it; row locks make each change happen once.
    func socialUpkeep() {
        let abandonAfter = configuration.duel.abandonAfterMs
        database(for: nil, priority: .background, { db in
            let now = Clock.nowMs()
            try db.expireChallenges(nowMs: now)
            try db.expireRematchOffers(nowMs: now)
            try db.leaveGoneMembers(afterMs: abandonAfter, nowMs: now)
        }) { core, _, result in
            if case .failure(let error) = result, !((error as? PGError)?.isConnectionFailure ?? false) {
                core.logger.warning("room and challenge upkeep failed", metadata: ["error": "\(error)"])
            }
        }
    }
}
