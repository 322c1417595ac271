import DuelCore
import DuelStore
import Foundation

/// What a sign-in's database job reads: the player, their profile, their live duel's latest
/// event, and their room and waiting challenges.
typealias SignIn = (player: PlayerID, profile: PlayerProfile?, live: [StoredEvent], waiting: WaitingSocial)

/// Sign-in and sessions: signup, login, auth and logout, binding connections to players, a
/// player's last connection going (their queue entry goes, their live duel's abandonment clock
/// starts), and sessions ended elsewhere closing sockets here. Password hashing runs on the
/// hashing threads, database work on the database threads; the lws thread only routes.
final class Sessions: @unchecked Sendable {
    private let configuration: ServerConfiguration
    let hashing: HashingQueue
    private let connections: ConnectionTable
    private let replies: Replies
    private let jobs: ServerJobs
    private let delivery: DuelDelivery
    private let notifications: PlayerNotifications
    private let transport: any Transport
    private let metrics: Metrics
    private let instance: String

    init(configuration: ServerConfiguration, hashing: HashingQueue, connections: ConnectionTable, replies: Replies,
         jobs: ServerJobs, delivery: DuelDelivery, notifications: PlayerNotifications, transport: any Transport,
         metrics: Metrics, instance: String) {
        self.configuration = configuration
        self.hashing = hashing
        self.connections = connections
        self.replies = replies
        self.jobs = jobs
        self.delivery = delivery
        self.notifications = notifications
        self.transport = transport
        self.metrics = metrics
        self.instance = instance
    }

    func signup(_ connection: Connection, _ ref: RequestRef?, _ username: String, _ password: String) {
        let id = connection.id
        let lifetime = configuration.signIn.tokenLifetimeSeconds
        let instance = self.instance
        let queued = hashing.submit(address: connection.address, connection: id) { [self] in
            guard let hash = Passwords.hash(password) else {
                jobs.post { [self] in connections[id].map { replies.fail($0, ref, ProtocolError(.internal)) } }
                return
            }
            let token = Tokens.generate()
            jobs.post { [self] in
                guard let connection = connections[id] else { return }
                jobs.database(for: connection, delivering: { db, outbox -> (PlayerID, PlayerProfile?) in
                    let players = PlayerRepository(db)
                    let player = try players.createPlayer(username: username, passwordHash: hash)
                    try players.createSession(player: player, tokenHash: Tokens.hash(token), lifetimeSeconds: lifetime)
                    try players.markPresent(player: player, instance: instance, outbox: outbox)
                    return (player, try players.profile(player: player))
                }) { [self] connection, result in
                    // A new account has no room and no challenges yet.
                    finishLogin(connection, ref, token: token, result: result.map { ($0.0, $0.1, [], .none) })
                }
            }
        }
        if !queued { refuseHashing(connection, ref) }
    }

    /// The attempt is counted (in the database, for every instance) as it arrives, before
    /// its slow verification, so pipelined guesses past the limit are refused at once.
    func login(_ connection: Connection, _ ref: RequestRef?, _ username: String, _ password: String) {
        let address = connection.address
        let limits = configuration.signIn.loginLimits
        jobs.database(for: connection, { db in
            try PlayerRepository(db).loginAttempt(username: username, address: address, limits: limits)
        }) { [self] connection, result in
            guard let connection else { return }
            switch result {
            case .failure(let error):
                replies.fail(connection, ref, replies.protocolError(error, on: connection))
            case .success(.throttled):
                replies.fail(connection, ref, ProtocolError(.rateLimited, "too many failed logins; try again in a few minutes"))
            case .success(.proceed(let found)):
                verify(connection, ref, username: username, password: password, found: found)
            }
        }
    }

    /// Checks the password on a hashing thread, then opens the session.
    private func verify(
        _ connection: Connection, _ ref: RequestRef?, username: String, password: String, found: (id: PlayerID, passwordHash: String)?
    ) {
        let id = connection.id
        let lifetime = configuration.signIn.tokenLifetimeSeconds
        let instance = self.instance
        let replays = delivery.replays
        let queued = hashing.submit(address: connection.address, connection: id) { [self] in
            // Unknown usernames still cost one verification, so timing does not tell them apart.
            let valid = Passwords.verify(password, hash: found?.passwordHash ?? Passwords.decoyHash) && found != nil
            jobs.post { [self] in
                guard let connection = connections[id] else { return }
                guard valid, let player = found?.id else {
                    replies.fail(connection, ref, ProtocolError(.badCredentials))
                    return
                }
                let token = Tokens.generate()
                jobs.database(for: connection, delivering: { db, outbox -> SignIn in
                    let players = PlayerRepository(db)
                    try players.loginSucceeded(username: username)
                    try players.createSession(player: player, tokenHash: Tokens.hash(token), lifetimeSeconds: lifetime)
                    try players.markPresent(player: player, instance: instance, outbox: outbox)
                    return (player, try players.profile(player: player), try DuelRepository(db).liveDuel(player: player, replays: replays),
                            try RoomRepository(db).waitingSocial(player: player))
                }) { [self] connection, result in
                    finishLogin(connection, ref, token: token, result: result)
                }
            }
        }
        if !queued { refuseHashing(connection, ref) }
    }

    /// The hashing queue is full, for everyone or for this address: answer now rather
    /// than hold the password in memory behind a backlog.
    private func refuseHashing(_ connection: Connection, _ ref: RequestRef?) {
        metrics.hashingRefused += 1
        replies.fail(connection, ref, ProtocolError(.rateLimited, "too many password checks waiting; try again shortly"))
    }

    func authenticate(_ connection: Connection, _ ref: RequestRef?, token: String, timeZone: String? = nil) {
        let hash = Tokens.hash(token)
        let instance = self.instance
        let replays = delivery.replays
        jobs.database(for: connection, delivering: { db, outbox -> SignIn? in
            let players = PlayerRepository(db)
            guard let player = try players.sessionPlayer(tokenHash: hash) else { return nil }
            // Sent once with auth (issue 14): the zone streak days are counted in. A change
            // within a day of the last one is kept for later rather than failing the sign-in
            // (a traveller's browser reports its new zone with every auth).
            if let timeZone {
                do { try ProgressRepository(db).setTimeZone(player: player, timeZone) } catch let refusal as StoreError
                    where refusal.error.code == .rateLimited {}
            }
            // Registered before the reply: once the client hears it is signed in here,
            // every instance sees it present (it may close its other sockets next).
            try players.markPresent(player: player, instance: instance, outbox: outbox)
            return (player, try players.profile(player: player), try DuelRepository(db).liveDuel(player: player, replays: replays),
                    try RoomRepository(db).waitingSocial(player: player))
        }) { [self] connection, result in
            guard let connection else { return }
            switch result {
            case .success(nil):
                replies.fail(connection, ref, ProtocolError(.unauthorized, "unknown or expired token"))
            case .success(let found?):
                connection.tokenHash = hash
                finishLogin(connection, ref, token: nil, result: .success(found))
            case .failure(let error):
                replies.fail(connection, ref, replies.protocolError(error, on: connection))
            }
        }
    }

    /// Binds the connection to the player and replies: `{token, player}` for signup
    /// and login, `{player, duel}` for auth (the live duel's latest record, or null).
    private func finishLogin(_ connection: Connection?, _ ref: RequestRef?, token: String?, result: Result<SignIn, Error>) {
        guard let connection else { return }
        switch result {
        case .failure(let error):
            replies.fail(connection, ref, replies.protocolError(error, on: connection))
        case .success(let (player, profile, live, waiting)):
            if let previous = connection.player, previous != player { detach(connection, from: previous) }
            connection.player = player
            if let token { connection.tokenHash = Tokens.hash(token) }
            if connections.directory.attach(connection.id, to: player) {
                // The player's first connection here: every instance can now see them present.
                let instance = self.instance
                jobs.database(for: nil, delivering: { db, outbox in try PlayerRepository(db).markPresent(player: player, instance: instance, outbox: outbox) }) { [self] _, result in
                    if case .success(true) = result { connections.directory.markShared(player) }
                }
            }
            var data: JSONObject = ["player": profile?.json ?? .null]
            if let token { data["token"] = .string(token) }
            if let duel = live.last?.duelID {
                // Live events continue from this record on.
                let shown = delivery.signedIn(connection, live: live)
                if shown != nil || token == nil {
                    data["duel"] = shown.flatMap { try? JSONParser.parse($0.recordJSON) } ?? .null
                }
                // A player is back on a live duel: stop its abandonment clock.
                delivery.submitAndApply(.reconnected(player: player, atMs: Clock.nowMs()), to: duel)
            } else if token == nil {
                data["duel"] = .null
            }
            replies.reply(connection, ref, data)
            notifications.sendWaiting(waiting, to: connection)
        }
    }

    func logout(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        let hash = connection.tokenHash
        detach(connection, from: player)
        connection.player = nil
        connection.tokenHash = nil
        delivery.forget(connection)
        jobs.database(for: connection, { db in
            if let hash { try PlayerRepository(db).deleteSession(tokenHash: hash) }
            try QueueRepository(db).cancelQueue(player: player)
        }) { [self] connection, result in
            replies.answer(connection, ref, result.map { [:] })
        }
    }

    /// A connection closed: it no longer speaks for its player.
    func closed(_ connection: Connection) {
        hashing.drop(connection: connection.id)
        if let player = connection.player { detach(connection, from: player) }
    }

    /// The connection no longer speaks for `player`. When it was the player's last
    /// connection here, their queue entry goes and a live duel starts its abandonment clock.
    private func detach(_ connection: Connection, from player: PlayerID) {
        guard connections.directory.detach(connection.id, from: player) else { return }
        let now = Clock.nowMs()
        let instance = self.instance
        jobs.database(for: nil, delivering: { db, outbox -> String? in
            // A connection on another live instance keeps the player present there.
            if try PlayerRepository(db).markAbsent(player: player, instance: instance, outbox: outbox) { return nil }
            try QueueRepository(db).cancelQueue(player: player)
            return try DuelRepository(db).liveDuelID(player: player)?.duelID
        }) { [self] _, result in
            guard case .success(let duel?) = result else { return }
            delivery.submitAndApply(.disconnected(player: player, atMs: now), to: duel)
        }
    }

    /// Sessions ended by a logout or by expiry, on any instance (NOTIFY `sessions_ended`,
    /// payload token hashes in hex, comma-separated): close the sockets still using them.
    func sessionsEndedNotified(_ payload: String) {
        // Decoded once: hex-encoding every connection's hash instead cost some 35 allocations
        // per connection on the lws thread, for every logout of every instance.
        let ended = Set(payload.split(separator: ",").compactMap { Tokens.bytes(hex: $0) })
        guard !ended.isEmpty else { return }
        for connection in connections.all {
            guard let hash = connection.tokenHash, ended.contains(hash) else { continue }
            connection.tokenHash = nil
            transport.close(connection, .policyViolation, "signed out: the session ended")
        }
    }
}
