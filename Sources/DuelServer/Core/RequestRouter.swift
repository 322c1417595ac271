import DuelCore
import DuelStore
import Foundation

/// The request router: every client message passes the gate (rate, size, JSON, sign-in;
/// ``RequestGate``), is stamped with the server clock on arrival (the answer's time for every
/// rule), and goes to the one part whose job it is. The switch is over the decoded request, so
/// an op without a handler does not compile. lws thread only.
final class RequestRouter: @unchecked Sendable {
    private let sessions: Sessions
    private let games: GameRequests
    private let delivery: DuelDelivery
    private let data: DataRequests
    private let replies: Replies
    private let transport: any Transport
    private let metrics: Metrics

    init(sessions: Sessions, games: GameRequests, delivery: DuelDelivery, data: DataRequests, replies: Replies,
         transport: any Transport, metrics: Metrics) {
        self.sessions = sessions
        self.games = games
        self.delivery = delivery
        self.data = data
        self.replies = replies
        self.transport = transport
        self.metrics = metrics
    }

    /// A round-trip pong came back (issue 26): the player's game may hear a new lag.
    func measured(_ connection: Connection, kernelRttUs: UInt32?) {
        games.lags.measured(connection, kernelRttUs: kernelRttUs)
    }

    func received(_ connection: Connection, text: [UInt8]) {
        let arrivedMs = Clock.nowMs()
        metrics.messagesReceived += 1
        let envelope: RequestEnvelope
        switch RequestGate.admit(text, limit: connection.limiter.take(nowMs: arrivedMs), signedIn: connection.player != nil) {
        case .dispatch(let admitted):
            envelope = admitted
        case .refuse(let ref, let error):
            replies.fail(connection, ref, error)
            return
        case .close:
            transport.close(connection, .policyViolation, "message flood")
            return
        }
        route(envelope, from: connection, arrivedMs: arrivedMs)
    }

    private func route(_ envelope: RequestEnvelope, from connection: Connection, arrivedMs: Int64) {
        let ref = envelope.ref
        switch envelope.request {
        case .signup(let username, let password): sessions.signup(connection, ref, username, password)
        case .login(let username, let password): sessions.login(connection, ref, username, password)
        case .auth(let token, let timeZone): sessions.authenticate(connection, ref, token: token, timeZone: timeZone)
        case .logout: sessions.logout(connection, ref)
        case .banks: data.banks(connection, ref)
        case .queue(let bank): games.queue(connection, ref, bank: bank)
        case .cancel: games.cancel(connection, ref)
        case .answer(let duel, let index, let submission):
            games.answer(connection, ref, duel: duel, index: index, submission: submission, arrivedMs: arrivedMs)
        case .forfeit(let duel): games.forfeit(connection, ref, duel: duel, arrivedMs: arrivedMs)
        case .resume(let duel, let afterSeq): delivery.resume(connection, ref, duel: duel, afterSeq: afterSeq)
        case .practice(let bank, let mistakes): games.practice(connection, ref, bank: bank, mistakes: mistakes)
        case .recorded(let bank): games.recorded(connection, ref, bank: bank)
        case .roomCreate(let bank, let questions, let answerMs, let maxPlayers):
            games.roomCreate(connection, ref, bank: bank, questions: questions, answerMs: answerMs, maxPlayers: maxPlayers)
        case .roomJoin(let code): games.roomJoin(connection, ref, code: code)
        case .roomLeave: games.roomLeave(connection, ref)
        case .roomStart: games.roomStart(connection, ref)
        case .challenge(let username, let bank): games.challenge(connection, ref, username: username, bank: bank)
        case .challengeAccept(let id): games.challengeAccept(connection, ref, id: id)
        case .rematch(let duel): games.rematch(connection, ref, duel: duel)
        case .leaderboard, .profile, .history, .mistakes, .challengeDecline, .challenges, .report:
            data.request(connection, ref, envelope.request)
        case .quizCreate, .quizUpdate, .quizDelete, .quizPublish, .quizUnpublish, .quizQuestions, .quizInfo,
             .myQuizzes, .questionAdd, .questionUpdate, .questionDelete, .catalog, .quizSave, .quizUnsave, .library,
             .rate, .reportQuiz:
            data.quizRequest(connection, ref, envelope.request)
        case .profileUpdate, .goalSet, .goals, .notifications, .notificationsSeen, .ratingHistory, .stats, .achievements,
             .bankPrefSet, .bankPrefs:
            data.progressRequest(connection, ref, envelope.request)
        }
    }
}
