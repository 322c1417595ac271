import DuelCore
import DuelStore
import Foundation

/// Routing of client messages to the operations of PROTOCOL.md.
extension DuelServerCore {
    func received(_ connection: Connection, text: [UInt8]) {
        let arrivedMs = Clock.nowMs()
        metrics.messagesReceived += 1
        switch connection.limiter.take(nowMs: arrivedMs) {
        case .allow: break
        case .refuse:
            metrics.errorsByCode[ErrorCode.rateLimited.rawValue, default: 0] += 1
            send(connection, ServerMessage.error(ref: nil, ProtocolError(.rateLimited)))
            return
        case .close:
            lws.close(connection, .policyViolation, "message flood")
            return
        }
        let envelope: RequestEnvelope
        switch ClientRequest.decode(text) {
        case .failure(let failure):
            if connection.player == nil, let op = failure.op, ClientRequest.ops.contains(op),
               !ClientRequest.anonymousOps.contains(op) {
                fail(connection, failure.ref, ProtocolError(.unauthorized))
            } else {
                fail(connection, failure.ref, failure.error)
            }
            return
        case .success(let decoded):
            envelope = decoded
        }
        guard envelope.request.allowedAnonymously || connection.player != nil else {
            fail(connection, envelope.ref, ProtocolError(.unauthorized))
            return
        }
        let ref = envelope.ref
        switch envelope.request {
        case .signup(let username, let password): signup(connection, ref, username, password)
        case .login(let username, let password): login(connection, ref, username, password)
        case .auth(let token): authenticate(connection, ref, token: token)
        case .logout: logout(connection, ref)
        case .banks: banks(connection, ref)
        case .queue(let bank): queue(connection, ref, bank: bank)
        case .cancel: cancel(connection, ref)
        case .answer(let duel, let index, let choice):
            answer(connection, ref, duel: duel, index: index, choice: choice, arrivedMs: arrivedMs)
        case .forfeit(let duel): forfeit(connection, ref, duel: duel, arrivedMs: arrivedMs)
        case .resume(let duel, let afterSeq): resume(connection, ref, duel: duel, afterSeq: afterSeq)
        case .leaderboard(let bank, let limit):
            simple(connection, ref) { db in ["entries": .array(try db.leaderboard(bank: bank, limit: limit))] }
        case .profile(let player):
            let who = player ?? connection.player!
            simple(connection, ref) { db in
                guard let profile = try db.profile(player: who) else {
                    throw StoreError(.badRequest, "player: no such player")
                }
                return ["player": profile.json]
            }
        case .history(let limit):
            let player = connection.player!
            simple(connection, ref) { db in ["duels": .array(try db.history(player: player, limit: limit))] }
        case .mistakes(let limit):
            let player = connection.player!
            simple(connection, ref) { db in ["questions": .array(try db.mistakes(player: player, limit: limit))] }
        case .report(let question, let reason):
            let player = connection.player!
            simple(connection, ref) { db in
                try db.report(player: player, question: question, reason: reason)
                return [:]
            }
        }
    }

    /// A request answered by one database job whose result is the reply's `data`.
    func simple(_ connection: Connection, _ ref: RequestRef?, _ job: @escaping @Sendable (PGConnection) throws -> JSONObject) {
        database(for: connection, job) { core, connection, result in
            guard let connection else { return }
            switch result {
            case .success(let data): core.reply(connection, ref, data)
            case .failure(let error): core.fail(connection, ref, core.protocolError(error, on: connection))
            }
        }
    }

    /// `banks` needs no sign-in, so anyone can flood it: answers come from a copy at most
    /// ``banksCacheMs`` old, and one read (a background job) serves every request waiting.
    func banks(_ connection: Connection, _ ref: RequestRef?) {
        if let cached = banksCache, Clock.nowMs() - cached.atMs < Self.banksCacheMs {
            return reply(connection, ref, cached.data)
        }
        banksWaiting.append((connection.id, ref))
        guard banksWaiting.count == 1 else { return }
        database(for: nil, priority: .background, { db -> JSONObject in ["banks": .array(try db.banks().map(\.json))] }) {
            core, _, result in
            let waiting = core.banksWaiting
            core.banksWaiting = []
            if case .success(let data) = result { core.banksCache = (Clock.nowMs(), data) }
            for (id, ref) in waiting {
                guard let connection = core.connections[id] else { continue }
                switch result {
                case .success(let data): core.reply(connection, ref, data)
                case .failure(let error): core.fail(connection, ref, core.protocolError(error, on: connection))
                }
            }
        }
    }

    static let banksCacheMs: Int64 = 2_000

    func queue(_ connection: Connection, _ ref: RequestRef?, bank: String) {
        let player = connection.player!
        let needed = configuration.duel.questionCount
        database(for: connection, { db in try db.enqueue(player: player, bank: bank, questionsNeeded: needed) }) { core, connection, result in
            guard let connection else { return }
            switch result {
            case .success(let queuedAt):
                core.reply(connection, ref, ["queued_at": .string(Timestamp.iso8601(ms: queuedAt))])
                let event = ServerMessage.queued(player: player, bank: bank, queuedAtMs: queuedAt, serverTimeMs: Clock.nowMs())
                for id in core.directory.connections(of: player) {
                    if let other = core.connections[id] { core.send(other, event) }
                }
                core.runMatcher()
            case .failure(let error):
                core.fail(connection, ref, core.protocolError(error, on: connection))
            }
        }
    }

    func cancel(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        database(for: connection, { db in try db.cancelQueue(player: player) }) { core, connection, result in
            guard let connection else { return }
            switch result {
            case .success(true): core.reply(connection, ref)
            case .success(false): core.fail(connection, ref, ProtocolError(.notQueued, "you are not in a queue (or were already matched)"))
            case .failure(let error): core.fail(connection, ref, core.protocolError(error, on: connection))
            }
        }
    }
}
