import DuelCore
import DuelStore
import Foundation

/// Routing of client messages to the operations of PROTOCOL.md.
extension DuelServerCore {
    func received(_ connection: Connection, text: [UInt8]) {
        let arrivedMs = Clock.nowMs()
        metrics.messagesReceived += 1
        let envelope: RequestEnvelope
        switch RequestGate.admit(text, limit: connection.limiter.take(nowMs: arrivedMs), signedIn: connection.player != nil) {
        case .dispatch(let admitted):
            envelope = admitted
        case .refuse(let ref, let error):
            fail(connection, ref, error)
            return
        case .close:
            transport.close(connection, .policyViolation, "message flood")
            return
        }
        let ref = envelope.ref
        switch envelope.request {
        case .signup(let username, let password): signup(connection, ref, username, password)
        case .login(let username, let password): login(connection, ref, username, password)
        case .auth(let token, let timeZone): authenticate(connection, ref, token: token, timeZone: timeZone)
        case .logout: logout(connection, ref)
        case .banks: banks(connection, ref)
        case .queue(let bank): queue(connection, ref, bank: bank)
        case .cancel: cancel(connection, ref)
        case .answer(let duel, let index, let submission):
            answer(connection, ref, duel: duel, index: index, submission: submission, arrivedMs: arrivedMs)
        case .forfeit(let duel): forfeit(connection, ref, duel: duel, arrivedMs: arrivedMs)
        case .resume(let duel, let afterSeq): resume(connection, ref, duel: duel, afterSeq: afterSeq)
        case .leaderboard(let bank, let limit):
            let viewer = connection.player
            simple(connection, ref) { db in
                ["entries": .array(try db.leaderboard(bank: bank, limit: limit, viewer: viewer))]
            }
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
            simple(connection, ref) { db in
                ["questions": .array(try db.mistakes(player: player, limit: limit)),
                 "learned_count": .number(try db.learnedCount(player: player))]
            }
        case .practice(let bank, let mistakes): practice(connection, ref, bank: bank, mistakes: mistakes)
        case .roomCreate(let bank, let questions, let answerMs, let maxPlayers):
            roomCreate(connection, ref, bank: bank, questions: questions, answerMs: answerMs, maxPlayers: maxPlayers)
        case .roomJoin(let code): roomJoin(connection, ref, code: code)
        case .roomLeave: roomLeave(connection, ref)
        case .roomStart: roomStart(connection, ref)
        case .challenge(let username, let bank): challenge(connection, ref, username: username, bank: bank)
        case .challengeAccept(let id): challengeAccept(connection, ref, id: id)
        case .challengeDecline(let id):
            let player = connection.player!
            simple(connection, ref) { db in
                ["challenge": try db.declineChallenge(player: player, id: id, nowMs: Clock.nowMs()).json]
            }
        case .challenges:
            let player = connection.player!
            simple(connection, ref) { db in ["challenges": .array(try db.pendingChallenges(player: player).map(\.json))] }
        case .rematch(let duel): rematch(connection, ref, duel: duel)
        case .report(let question, let reason):
            let player = connection.player!
            let perHour = configuration.reportsPerHour
            simple(connection, ref) { db in
                try db.report(player: player, question: question, reason: reason, perHour: perHour)
                return [:]
            }
        case .quizCreate, .quizUpdate, .quizDelete, .quizPublish, .quizUnpublish, .quizQuestions, .quizInfo,
             .myQuizzes, .questionAdd, .questionUpdate, .questionDelete, .catalog, .quizSave, .quizUnsave, .library,
             .rate, .reportQuiz:
            quizRequest(connection, ref, envelope.request)
        case .profileUpdate, .goalSet, .goals, .notifications, .notificationsSeen, .ratingHistory, .stats, .achievements:
            progressRequest(connection, ref, envelope.request)
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

    /// `banks` is answered from a short-lived copy (see ``BanksCache``); one background
    /// read serves every request that arrived while it ran.
    func banks(_ connection: Connection, _ ref: RequestRef?) {
        switch banks.lookup(connection: connection.id, ref: ref, nowMs: Clock.nowMs()) {
        case .fresh(let data): reply(connection, ref, data)
        case .wait(startRead: false): break
        case .wait(startRead: true):
            let needed = configuration.duel.questionCount
            database(for: nil, priority: .background, { db -> JSONObject in
                ["banks": .array(try db.banks(questionsNeeded: needed).map(\.json))]
            }) {
                core, _, result in
                for (id, ref) in core.banks.finished(try? result.get(), nowMs: Clock.nowMs()) {
                    guard let connection = core.connections[id] else { continue }
                    switch result {
                    case .success(let data): core.reply(connection, ref, data)
                    case .failure(let error): core.fail(connection, ref, core.protocolError(error, on: connection))
                    }
                }
            }
        }
    }

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

    /// A one-player unrated game: the reply `{duel_id}`, then its `init` like any duel's.
    func practice(_ connection: Connection, _ ref: RequestRef?, bank: String?, mistakes: Bool) {
        let player = connection.player!
        let rules = configuration.duel
        // Other instances hear of it only when the player is also connected there.
        let announce = directory.shared.contains(player)
        database(for: connection, { db in
            try db.startPractice(
                player: player, bank: bank, mistakes: mistakes, configuration: rules, nowMs: Clock.nowMs(), announce: announce)
        }) { core, connection, result in
            // The player is connected: no abandonment clock to start.
            core.started(connection, ref, result.map { (["duel_id": .string($0.duelID)], $0, []) })
        }
    }
}
