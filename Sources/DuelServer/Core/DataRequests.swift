import DuelCore
import DuelStore
import Foundation

/// Requests answered by one database job whose result is the reply's `data`: reads
/// (`banks`, leaderboards, profiles, history, mistakes), reports, declining and listing
/// challenges, the quiz ops and the progress ops. The store checks visibility, ownership,
/// caps and rates. lws thread only.
final class DataRequests: @unchecked Sendable {
    let configuration: ServerConfiguration
    private let connections: ConnectionTable
    private let replies: Replies
    private let jobs: ServerJobs
    /// The copy `banks` answers from (see ``BanksCache``).
    private var banksCache = BanksCache()

    init(configuration: ServerConfiguration, connections: ConnectionTable, replies: Replies, jobs: ServerJobs) {
        self.configuration = configuration
        self.connections = connections
        self.replies = replies
        self.jobs = jobs
    }

    /// Runs `job` for the connection and replies with its data or its error.
    /// The job's ``Outbox`` (a declined challenge's event, a published quiz's achievement) is
    /// delivered after the reply.
    func answer(_ connection: Connection, _ ref: RequestRef?, _ job: @escaping @Sendable (PGConnection, Outbox) throws -> JSONObject) {
        jobs.database(for: connection, delivering: job) { [self] connection, result in replies.answer(connection, ref, result) }
    }

    /// `banks` is answered from a short-lived copy (see ``BanksCache``); one background
    /// read serves every request that arrived while it ran.
    func banks(_ connection: Connection, _ ref: RequestRef?) {
        switch banksCache.lookup(connection: connection.id, ref: ref, nowMs: Clock.nowMs()) {
        case .fresh(let data): replies.reply(connection, ref, data)
        case .wait(startRead: false): break
        case .wait(startRead: true):
            let needed = configuration.duel.questionCount
            jobs.database(for: nil, priority: .background, { db -> JSONObject in
                ["banks": .array(try QuizRepository(db).banks(questionsNeeded: needed).map(\.json))]
            }) { [self] _, result in
                for (id, ref) in banksCache.finished(try? result.get(), nowMs: Clock.nowMs()) {
                    replies.answer(connections[id], ref, result)
                }
            }
        }
    }

    /// The reads and the other one-job ops of version 1 and of rooms.
    func request(_ connection: Connection, _ ref: RequestRef?, _ request: ClientRequest) {
        let signedIn = connection.player
        let reportsPerHour = configuration.social.reportsPerHour
        answer(connection, ref) { db, outbox in
            switch request {
            case .leaderboard(let bank, let limit):
                return ["entries": .array(try ProgressRepository(db).leaderboard(bank: bank, limit: limit, viewer: signedIn))]
            case .profile(let player):
                guard let profile = try PlayerRepository(db).profile(player: player ?? signedIn!) else {
                    throw StoreError(.badRequest, "player: no such player")
                }
                return ["player": profile.json]
            case .history(let limit):
                return ["duels": .array(try ProgressRepository(db).history(player: signedIn!, limit: limit))]
            case .mistakes(let limit):
                return ["questions": .array(try ProgressRepository(db).mistakes(player: signedIn!, limit: limit)),
                        "learned_count": .number(try ProgressRepository(db).learnedCount(player: signedIn!))]
            case .challengeDecline(let id):
                return ["challenge": try RoomRepository(db).declineChallenge(player: signedIn!, id: id, nowMs: Clock.nowMs(), outbox: outbox).json]
            case .challenges:
                return ["challenges": .array(try RoomRepository(db).pendingChallenges(player: signedIn!).map(\.json))]
            case .report(let question, let reason):
                try ReportRepository(db).report(player: signedIn!, question: question, reason: reason, perHour: reportsPerHour)
                return [:]
            default:
                throw StoreError(.internal, "not a data op: \(request.op)")
            }
        }
    }
}
