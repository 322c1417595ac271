import DuelCore
import DuelStore
import Foundation

/// Work the server does on a timer rather than on a request.
enum PeriodicJob: String, CaseIterable {
    /// The matcher looks at the queues even without a NOTIFY: a waiter's accepted gap widens with time.
    case matcher = "~matcher"
    /// Deadlines nobody here holds (another instance died, or this one restarted).
    case sweep = "~sweep"
    /// Database check for /healthz and the metrics read from the database.
    case health = "~health"
    /// Expiry of challenges and rematch offers; room members gone too long leave.
    case social = "~social"

    func intervalMs(_ configuration: ServerConfiguration) -> Int64 {
        switch self {
        case .matcher: max(10, configuration.matchIntervalMs)
        case .sweep: max(10, configuration.sweepIntervalMs)
        case .health: 1_000
        case .social: max(10, configuration.socialIntervalMs)
        }
    }
}

/// The matcher, deadlines, the sweep, health and metrics refresh.
extension DuelServerCore {
    /// Starts the periodic jobs (keys of the deadline schedule that duel ids never collide with).
    func startPeriodicJobs() {
        let now = Clock.nowMs()
        for job in PeriodicJob.allCases { schedule(job.rawValue, atMs: now + job.intervalMs(configuration)) }
    }

    func run(_ job: PeriodicJob) {
        switch job {
        case .matcher: runMatcher()
        case .sweep: sweep()
        case .health: checkHealth()
        case .social: socialUpkeep()
        }
    }

    /// Claims pairs in every bank with waiters, when ``MatcherGate`` lets a pass start.
    func runMatcher(concurrent: Bool = false) {
        guard matcher.start(concurrent: concurrent) else { return }
        let policy = configuration.matchPolicy
        let duelRules = configuration.duel
        let logger = self.logger
        let shared = directory.shared
        database(for: nil, { db -> [DuelUpdate] in
            try db.evictWaitersOfShortBanks(questionsNeeded: duelRules.questionCount)
            var created: [DuelUpdate] = []
            for bank in try db.banksWithWaitingPairs() {
                // One bank's failure must not stop the others' matchmaking.
                do {
                    created += try db.claimPairs(
                        bankID: bank, policy: policy, configuration: duelRules, nowMs: Clock.nowMs(), shared: shared)
                } catch {
                    logger.warning("matcher: bank failed", metadata: ["bank": "\(bank)", "error": "\(error)"])
                }
            }
            return created
        }) { core, _, result in
            if case .success(let created) = result { created.forEach(core.apply) }
            if case .failure(let error) = result { core.logger.warning("matcher failed", metadata: ["error": "\(error)"]) }
            let next = core.matcher.finished(created: (try? result.get())?.count)
            for _ in 0..<next.passes { core.runMatcher(concurrent: next.concurrent) }
        }
    }

    /// A duel's deadline fired (loop timer or sweep): apply what is due. On the lws thread.
    func fireDeadline(duel: String) {
        duelInput(for: nil, duel: duel, .advance(atMs: Clock.nowMs())) { core, _, result in
            switch result {
            case .success(let update?): core.apply(update)
            case .success(nil): break
            case .failure(let error):
                core.logger.warning("deadline failed; retrying", metadata: [LogKey.duel: .string(duel), "error": "\(error)"])
                core.schedule(duel, atMs: Clock.nowMs() + 500)
            }
        }
    }

    /// Deadlines nobody here holds (another instance crashed, or this one restarted).
    func sweep() {
        // A little grace, so the instance that owns a timer normally fires it first.
        let cutoff = Clock.nowMs() - 200
        database(for: nil, { db in try db.dueDuels(nowMs: cutoff) }) { core, _, result in
            if case .success(let due) = result { due.forEach(core.fireDeadline) }
        }
    }

    /// Re-arms the timers of every live duel (at start, and after the LISTEN connection was lost).
    func rescheduleLiveDuels() {
        database(for: nil, { db in try db.liveDuelDeadlines() }) { core, _, result in
            if case .success(let live) = result {
                for (id, deadline) in live { core.schedule(id, atMs: deadline) }
            }
        }
    }

    /// After the LISTEN connection came back: events may have been missed.
    func resynchronize() {
        rescheduleLiveDuels()
        for player in directory.players {
            let ids = directory.connections(of: player)
            database(for: nil, { db in try db.liveDuel(player: player) }) { core, _, result in
                guard case .success(let live?) = result else { return }
                for id in ids {
                    guard let connection = core.connections[id] else { continue }
                    let delivered = connection.deliveredSeq[live.duelID] ?? 0
                    if delivered < live.seq {
                        // Naming the local player makes the duel relevant even if its `init`
                        // announcement was missed; the read brings its full player list.
                        core.readEvents([DuelNotification.Range(
                            duelID: live.duelID, firstSeq: delivered + 1, lastSeq: live.seq, players: [player])])
                    }
                }
            }
        }
        runMatcher()
    }

    /// Checks the database for /healthz and refreshes the metrics that come from it;
    /// heartbeats this instance and reaps dead ones (their waiters and presence go, and
    /// their players are reported gone from their live duels).
    func checkHealth() {
        let instance = self.instance
        let window = configuration.loginLimits.windowSeconds
        database(for: nil, { db -> (queues: [String: Int], live: Int, beat: (peers: Int, created: Bool),
                                    orphans: [(player: PlayerID, duel: String)], ends: [String]) in
            let beat = try db.heartbeat(instance: instance)
            let orphans = try db.reapDeadInstances()
            try db.forgetOldLoginFailures(windowSeconds: window)
            try db.endExpiredSessions()
            let ends = try db.pendingDuelEnds(olderThanMs: 2_000)
            return (try db.queueLengths(), try db.liveDuelCount(), beat, orphans, ends)
        }) { core, _, result in
            let now = Clock.nowMs()
            switch result {
            case .success(let health):
                core.lanes.setAnnouncing(health.beat.peers > 0)
                core.health.record(ok: true, reason: "ok", atMs: now)
                core.metrics.queueLengths = health.queues
                core.metrics.liveDuels = health.live
                if health.beat.created {
                    // Other instances took this one for dead (a stall of 10 s) and deleted
                    // its presence rows: register its players again.
                    core.logger.warning("instance row was reaped while alive; re-registering presence")
                    let players = Array(core.directory.players)
                    core.database(for: nil, { db in try db.markPresent(players: players, instance: instance) }) { _, _, _ in }
                }
                health.ends.forEach(core.endDuel)
                core.upkeepIfDue(nowMs: now)
                for orphan in health.orphans {
                    core.duelInput(for: nil, duel: orphan.duel, .disconnected(player: orphan.player, atMs: now)) {
                        core, _, result in
                        if case .success(let update?) = result { core.apply(update) }
                    }
                }
            case .failure(let error):
                core.health.record(ok: false, reason: "database: \(error)", atMs: now)
            }
        }
    }

    /// Archives old finished duels' events about once an hour (`ops.archive_events`; one
    /// instance at a time, the others skip the hour).
    func upkeepIfDue(nowMs: Int64) {
        guard nowMs >= nextUpkeepMs else { return }
        nextUpkeepMs = nowMs + configuration.upkeepIntervalMs
        let retention = configuration.notificationRetentionDays
        database(for: nil, priority: .background, { db in try db.runUpkeep(notificationRetentionDays: retention) }) {
            core, _, result in
            switch result {
            case .success(let archived?) where archived > 0:
                core.logger.info("archived old duel events", metadata: ["events": "\(archived)"])
            case .failure(let error):
                core.logger.warning("upkeep failed", metadata: ["error": "\(error)"])
            default: break
            }
        }
    }
}
