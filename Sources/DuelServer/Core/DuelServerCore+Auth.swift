import DuelCore
import DuelStore
import Foundation

/// What a sign-in's database job reads: the player, their profile, their live duel's latest
/// event, and their room and waiting challenges.
typealias SignIn = (player: PlayerID, profile: PlayerProfile?, live: StoredEvent?, waiting: WaitingSocial)

/// signup, login, auth and logout. Password hashing runs on the hashing threads,
/// database work on the database threads; the lws thread only routes.
extension DuelServerCore {
    func signup(_ connection: Connection, _ ref: RequestRef?, _ username: String, _ password: String) {
        let id = connection.id
        let lifetime = configuration.tokenLifetimeSeconds
        let instance = self.instance
        let queued = hashing.submit(address: connection.address, connection: id) { [self] in
            guard let hash = Passwords.hash(password) else {
                post { core in core.connections[id].map { core.fail($0, ref, ProtocolError(.internal)) } }
                return
            }
            let token = Tokens.generate()
            post { core in
                guard let connection = core.connections[id] else { return }
                core.database(for: connection, { db -> (PlayerID, PlayerProfile?) in
                    let player = try db.createPlayer(username: username, passwordHash: hash)
                    try db.createSession(player: player, tokenHash: Tokens.hash(token), lifetimeSeconds: lifetime)
                    try db.markPresent(player: player, instance: instance)
                    return (player, try db.profile(player: player))
                }) { core, connection, result in
                    // A new account has no room and no challenges yet.
                    core.finishLogin(connection, ref, token: token, result: result.map { ($0.0, $0.1, nil, .none) })
                }
            }
        }
        if !queued { refuseHashing(connection, ref) }
    }

    /// The attempt is counted (in the database, for every instance) as it arrives, before
    /// its slow verification, so pipelined guesses past the limit are refused at once.
    func login(_ connection: Connection, _ ref: RequestRef?, _ username: String, _ password: String) {
        let address = connection.address
        let limits = configuration.loginLimits
        let lifetime = configuration.tokenLifetimeSeconds
        let instance = self.instance
        database(for: connection, { db in
            try db.loginAttempt(username: username, address: address, limits: limits)
        }) { core, connection, result in
            guard let connection else { return }
            switch result {
            case .failure(let error):
                core.fail(connection, ref, core.protocolError(error, on: connection))
            case .success(.throttled):
                core.fail(connection, ref, ProtocolError(.rateLimited, "too many failed logins; try again in a few minutes"))
            case .success(.proceed(let found)):
                let id = connection.id
                let queued = core.hashing.submit(address: address, connection: id) {
                    // Unknown usernames still cost one verification, so timing does not tell them apart.
                    let valid = Passwords.verify(password, hash: found?.passwordHash ?? Passwords.decoyHash) && found != nil
                    core.post { core in
                        guard let connection = core.connections[id] else { return }
                        guard valid, let player = found?.id else {
                            core.fail(connection, ref, ProtocolError(.badCredentials))
                            return
                        }
                        let token = Tokens.generate()
                        core.database(for: connection, { db -> SignIn in
                            try db.loginSucceeded(username: username)
                            try db.createSession(player: player, tokenHash: Tokens.hash(token), lifetimeSeconds: lifetime)
                            try db.markPresent(player: player, instance: instance)
                            return (player, try db.profile(player: player), try db.liveDuel(player: player),
                                    try db.waitingSocial(player: player))
                        }) { core, connection, result in
                            core.finishLogin(connection, ref, token: token, result: result)
                        }
                    }
                }
                if !queued { core.refuseHashing(connection, ref) }
            }
        }
    }

    /// The hashing queue is full, for everyone or for this address: answer now rather
    /// than hold the password in memory behind a backlog.
    private func refuseHashing(_ connection: Connection, _ ref: RequestRef?) {
        metrics.hashingRefused += 1
        fail(connection, ref, ProtocolError(.rateLimited, "too many password checks waiting; try again shortly"))
    }

    func authenticate(_ connection: Connection, _ ref: RequestRef?, token: String, timeZone: String? = nil) {
        let hash = Tokens.hash(token)
        let instance = self.instance
        database(for: connection, { db -> SignIn? in
            guard let player = try db.sessionPlayer(tokenHash: hash) else { return nil }
            // Sent once with auth (issue 14): the zone streak days are counted in. A change
            // within a day of the last one is kept for later rather than failing the sign-in
            // (a traveller's browser reports its new zone with every auth).
            if let timeZone {
                do { try db.setTimeZone(player: player, timeZone) } catch let refusal as StoreError
                    where refusal.error.code == .rateLimited {}
            }
            // Registered before the reply: once the client hears it is signed in here,
            // every instance sees it present (it may close its other sockets next).
            try db.markPresent(player: player, instance: instance)
            return (player, try db.profile(player: player), try db.liveDuel(player: player),
                    try db.waitingSocial(player: player))
        }) { core, connection, result in
            guard let connection else { return }
            switch result {
            case .success(nil):
                core.fail(connection, ref, ProtocolError(.unauthorized, "unknown or expired token"))
            case .success(let found?):
                connection.tokenHash = hash
                core.finishLogin(connection, ref, token: nil, result: .success(found))
            case .failure(let error):
                core.fail(connection, ref, core.protocolError(error, on: connection))
            }
        }
    }

    /// Binds the connection to the player and replies: `{token, player}` for signup
    /// and login, `{player, duel}` for auth (the live duel's latest record, or null).
    private func finishLogin(
        _ connection: Connection?, _ ref: RequestRef?, token: String?,
        result: Result<SignIn, Error>
    ) {
        guard let connection else { return }
        switch result {
        case .failure(let error):
            fail(connection, ref, protocolError(error, on: connection))
        case .success(let (player, profile, live, waiting)):
            if let previous = connection.player, previous != player { detach(connection, from: previous) }
            connection.player = player
            if let token { connection.tokenHash = Tokens.hash(token) }
            if directory.attach(connection.id, to: player) {
                // The player's first connection here: every instance can now see them present.
                let instance = self.instance
                database(for: nil, { db in try db.markPresent(player: player, instance: instance) }) { core, _, result in
                    if case .success(true) = result { core.directory.markShared(player) }
                }
            }
            var data: JSONObject = ["player": profile?.json ?? .null]
            if let token { data["token"] = .string(token) }
            if let live {
                // Live events continue from this record on.
                connection.deliveredSeq[live.duelID] = max(connection.deliveredSeq[live.duelID] ?? 0, live.seq)
                book.saw(live.duelID, seq: live.seq)
                data["duel"] = (try? JSONParser.parse(live.recordJSON)) ?? .null
                reconnected(player, duel: live.duelID)
            } else if token == nil {
                data["duel"] = .null
            }
            reply(connection, ref, data)
            sendWaiting(waiting, to: connection)
        }
    }

    func logout(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        let hash = connection.tokenHash
        detach(connection, from: player)
        connection.player = nil
        connection.tokenHash = nil
        connection.deliveredSeq = [:]
        database(for: connection, { db in
            if let hash { try db.deleteSession(tokenHash: hash) }
            try db.cancelQueue(player: player)
        }) { core, connection, result in
            guard let connection else { return }
            switch result {
            case .success: core.reply(connection, ref)
            case .failure(let error): core.fail(connection, ref, core.protocolError(error, on: connection))
            }
        }
    }

    /// The connection no longer speaks for `player`. When it was the player's last
    /// connection here, their queue entry goes and a live duel starts its abandonment clock.
    func detach(_ connection: Connection, from player: PlayerID) {
        guard directory.detach(connection.id, from: player) else { return }
        let now = Clock.nowMs()
        let instance = self.instance
        database(for: nil, { db -> String? in
            // A connection on another live instance keeps the player present there.
            if try db.markAbsent(player: player, instance: instance) { return nil }
            try db.cancelQueue(player: player)
            return try db.liveDuel(player: player)?.duelID
        }) { core, _, result in
            guard case .success(let duel?) = result else { return }
            core.duelInput(for: nil, duel: duel, .disconnected(player: player, atMs: now)) { core, _, result in
                if case .success(let update?) = result { core.apply(update) }
            }
        }
    }

    /// A player is back on a live duel: stop its abandonment clock.
    func reconnected(_ player: PlayerID, duel: String) {
        let now = Clock.nowMs()
        duelInput(for: nil, duel: duel, .reconnected(player: player, atMs: now)) { core, _, result in
            if case .success(let update?) = result { core.apply(update) }
        }
    }
}
