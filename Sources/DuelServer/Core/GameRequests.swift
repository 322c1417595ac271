import DuelCore
import DuelStore
import Foundation

/// Requests that play or start games: answer and forfeit, the queue, practice, rooms,
/// challenges and rematches. Each replies first, then hands the committed update to
/// ``DuelDelivery`` (a client learns its own verdict, or its new game's id, before events).
/// lws thread only.
final class GameRequests: @unchecked Sendable {
    let configuration: ServerConfiguration
    let connections: ConnectionTable
    let replies: Replies
    let jobs: ServerJobs
    let delivery: DuelDelivery
    let notifications: PlayerNotifications
    let metrics: Metrics
    /// Starts a matcher pass (``PeriodicJobs/runMatcher(concurrent:)``): a new waiter may complete a pair.
    let matchNow: () -> Void
    /// Players' measured lags, reported to their games (issue 26).
    let lags: LagReports
    /// `queue` requests, gathered into batches.
    let queueJoins: QueueJoins

    init(configuration: ServerConfiguration, connections: ConnectionTable, replies: Replies, jobs: ServerJobs,
         delivery: DuelDelivery, notifications: PlayerNotifications, metrics: Metrics,
         queueJoins: QueueJoins, matchNow: @escaping () -> Void) {
        self.queueJoins = queueJoins
        self.configuration = configuration
        self.connections = connections
        self.replies = replies
        self.jobs = jobs
        self.delivery = delivery
        self.notifications = notifications
        self.metrics = metrics
        self.matchNow = matchNow
        lags = LagReports(policy: LagPolicy(capMs: configuration.network.fairCapMs), delivery: delivery)
    }

    func answer(
        _ connection: Connection, _ ref: RequestRef?, duel: String, index: Int, submission: Submission, arrivedMs: Int64
    ) {
        let player = connection.player!
        let input = DuelInput.answer(player: player, questionIndex: index, submission: submission, atMs: arrivedMs)
        delivery.submit(input, to: duel, for: connection) { [self] connection, result in
            if case .success(_?) = result { metrics.answersHandled += 1 }
            if case .success(let update?) = result, update.outcome == .settling {
                // Issue 26: the verdict comes with the question's settle (``HeldReply``).
                if let connection {
                    delivery.hold(HeldReply(ref: ref, questionIndex: index, afterSeq: update.seq, arrivedMs: arrivedMs),
                                  duel: duel, for: connection)
                }
                delivery.apply(update)
                return
            }
            finishDuelRequest(connection, ref, result) { outcome in
                if case .answered(let correct, let points) = outcome {
                    metrics.answerLatency.observe(ms: Double(Clock.nowMs() - arrivedMs))
                    return Replies.answered(correct: correct, points: points)
                }
                return nil
            }
        }
    }

    func forfeit(_ connection: Connection, _ ref: RequestRef?, duel: String, arrivedMs: Int64) {
        let player = connection.player!
        delivery.submit(.forfeit(player: player, atMs: arrivedMs), to: duel, for: connection) { [self] connection, result in
            finishDuelRequest(connection, ref, result) { outcome in outcome == .accepted ? [:] : nil }
        }
    }

    /// Replies to an answer or forfeit, then delivers the events it caused
    /// (the reply first: a client learns its own verdict before the reveal).
    private func finishDuelRequest(
        _ connection: Connection?, _ ref: RequestRef?, _ result: Result<DuelUpdate?, Error>,
        data: (DuelStep.Outcome) -> JSONObject?
    ) {
        switch result {
        case .failure(let error):
            if let connection { replies.fail(connection, ref, replies.protocolError(error, on: connection)) }
        case .success(nil):
            if let connection { replies.fail(connection, ref, ProtocolError(.unknownDuel)) }
        case .success(let update?):
            if let connection {
                if case .rejected(let rejection) = update.outcome {
                    replies.fail(connection, ref, rejection)
                } else {
                    replies.reply(connection, ref, data(update.outcome) ?? [:])
                }
            }
            delivery.apply(update)
        }
    }

    /// Goes into the next batch of ``QueueJoins``; the reply, and the `queued` event to the
    /// player's connections, come when it committed.
    func queue(_ connection: Connection, _ ref: RequestRef?, bank: String) {
        let player = connection.player!
        queueJoins.add(QueueJoins.Join(connectionID: connection.id, player: player, bank: bank) {
            [self] connection, result, matchAfter in
            if matchAfter { matchNow() }
            guard let connection else { return }
            switch result {
            case .success(let queuedAt):
                replies.reply(connection, ref, ["queued_at": .string(Timestamp.iso8601(ms: queuedAt))])
                notifications.send(
                    ServerMessage.queued(player: player, bank: bank, queuedAtMs: queuedAt, serverTimeMs: Clock.nowMs()),
                    to: player)
            case .failure(let error):
                replies.fail(connection, ref, replies.protocolError(error, on: connection))
            }
        })
    }

    func cancel(_ connection: Connection, _ ref: RequestRef?) {
        let player = connection.player!
        jobs.database(for: connection, { db in try QueueRepository(db).cancelQueue(player: player) }) { [self] connection, result in
            guard let connection else { return }
            switch result {
            case .success(true): replies.reply(connection, ref)
            case .success(false):
                replies.fail(connection, ref, ProtocolError(.notQueued, "you are not in a queue (or were already matched)"))
            case .failure(let error): replies.fail(connection, ref, replies.protocolError(error, on: connection))
            }
        }
    }

    /// A one-player unrated game: the reply `{duel_id}`, then its `init` like any duel's.
    func practice(_ connection: Connection, _ ref: RequestRef?, bank: String?, mistakes: Bool) {
        let player = connection.player!
        let rules = configuration.duel
        // Other instances hear of it only when the player is also connected there.
        let announce = Announcement.needed(players: [player], heldHere: { _ in true }, shared: connections.directory.shared)
        jobs.database(for: connection, { db in
            try DuelRepository(db).startPractice(
                player: player, bank: bank, mistakes: mistakes, configuration: rules, nowMs: Clock.nowMs(), announce: announce)
        }) { [self] connection, result in
            // The player is connected: no abandonment clock to start.
            started(connection, ref, result.map { (["duel_id": .string($0.duelID)], $0, []) })
        }
    }

    /// A game against a recorded opponent (issue 27): the reply `{duel_id, opponent}`
    /// (`past_player` or `house`: which, never who), then its `init` like any duel's.
    func recorded(_ connection: Connection, _ ref: RequestRef?, bank: String) {
        let player = connection.player!
        let rules = configuration.duel
        let announce = Announcement.needed(players: [player], heldHere: { _ in true }, shared: connections.directory.shared)
        jobs.database(for: connection, { db in
            try DuelRepository(db).startRecorded(
                player: player, bank: bank, configuration: rules, nowMs: Clock.nowMs(), announce: announce)
        }) { [self] connection, result in
            started(connection, ref, result.map {
                (["duel_id": .string($0.update.duelID), "opponent": .string($0.source.rawValue)], $0.update, [])
            })
        }
    }

    /// Replies to a request that started a game, then delivers the game's `init` (the
    /// reply first, as for `practice`).
    func started(
        _ connection: Connection?, _ ref: RequestRef?, _ result: Result<(JSONObject, DuelUpdate, [PlayerID]), Error>
    ) {
        switch result {
        case .success(let (data, update, absent)):
            if let connection { replies.reply(connection, ref, data) }
            delivery.apply(update)
            startAbandonment(of: absent, in: update.duelID)
        case .failure(let error):
            if let connection { replies.fail(connection, ref, replies.protocolError(error, on: connection)) }
        }
    }

    /// A game that began with players no instance holds (a room member or a challenger who
    /// went away): their abandonment clocks start now, as if they had just disconnected.
    func startAbandonment(of players: [PlayerID], in duel: String) {
        let now = Clock.nowMs()
        for player in players { delivery.submitAndApply(.disconnected(player: player, atMs: now), to: duel) }
    }
}
