import DuelCore
import DuelStore
import Foundation

/// Health, the hourly upkeep, the room and challenge upkeep, and operators' ends of duels.
extension PeriodicJobs {
    /// Checks the database for /healthz and refreshes the metrics that come from it;
    /// heartbeats this instance and reaps dead ones (their waiters and presence go, and
    /// their players are reported gone from their live duels).
    func checkHealth() {
        let instance = self.instance
        let window = configuration.signIn.loginLimits.windowSeconds
        jobs.database(for: nil, { db -> (queues: [String: Int], live: Int, beat: (peers: Int, created: Bool),
                                         orphans: [(player: PlayerID, duel: String)], ends: [String]) in
            let beat = try PlayerRepository(db).heartbeat(instance: instance)
            let orphans = try PlayerRepository(db).reapDeadInstances()
            try PlayerRepository(db).forgetOldLoginFailures(windowSeconds: window)
            try PlayerRepository(db).endExpiredSessions()
            let ends = try DuelRepository(db).pendingDuelEnds(olderThanMs: 2_000)
            return (try QueueRepository(db).queueLengths(), try DuelRepository(db).liveDuelCount(), beat, orphans, ends)
        }) { [self] _, result in
            let now = Clock.nowMs()
            switch result {
            case .success(let health):
                lanes.setAnnouncing(health.beat.peers > 0)
                if health.beat.peers > 0 || !health.orphans.isEmpty { self.health.sawPeers(atMs: now) }
                self.health.record(ok: true, reason: "ok", atMs: now)
                metrics.queueLengths = health.queues
                metrics.liveDuels = health.live
                if health.beat.created {
                    // Other instances took this one for dead (a stall of 10 s) and deleted
                    // its presence rows: register its players again.
                    logger.warning("instance row was reaped while alive; re-registering presence")
                    let players = Array(connections.directory.players)
                    jobs.database(for: nil, { db in try PlayerRepository(db).markPresent(players: players, instance: instance) }) { _, _ in }
                }
                health.ends.forEach(endDuel)
                upkeepIfDue(nowMs: now)
                for orphan in health.orphans {
                    delivery.submitAndApply(.disconnected(player: orphan.player, atMs: now), to: orphan.duel)
                }
            case .failure(let error):
                self.health.record(ok: false, reason: "database: \(error)", atMs: now)
            }
        }
    }

    /// Archives old finished duels' events about once an hour (`ops.archive_events`; one
    /// instance at a time, the others skip the hour).
    private func upkeepIfDue(nowMs: Int64) {
        guard nowMs >= nextUpkeepMs else { return }
        nextUpkeepMs = nowMs + configuration.jobs.upkeepIntervalMs
        let retention = configuration.social.notificationRetentionDays
        jobs.database(for: nil, priority: .background, { db in try DuelRepository(db).runUpkeep(notificationRetentionDays: retention) }) {
            [self] _, result in
            switch result {
            case .success(let archived?) where archived > 0:
                logger.info("archived old duel events", metadata: ["events": "\(archived)"])
            case .failure(let error):
                logger.warning("upkeep failed", metadata: ["error": "\(error)"])
            default: break
            }
        }
    }

    /// Expires challenges and rematch offers, lets room members gone longer than the
    /// abandonment delay (or banned) leave, and sends the goal reminders due. Every instance
    /// runs it; row locks make each change happen once.
    func socialUpkeep() {
        let abandonAfter = configuration.duel.abandonAfterMs
        jobs.database(for: nil, priority: .background, delivering: { db, outbox in
            let now = Clock.nowMs()
            try RoomRepository(db).expireChallenges(nowMs: now, outbox: outbox)
            try RoomRepository(db).expireRematchOffers(nowMs: now, outbox: outbox)
            try RoomRepository(db).leaveGoneMembers(afterMs: abandonAfter, nowMs: now, outbox: outbox)
            try ProgressRepository(db).sendReminders(nowMs: now, outbox: outbox)
        }) { [self] _, result in
            if case .failure(let error) = result, !((error as? PGError)?.isConnectionFailure ?? false) {
                logger.warning("room, challenge and reminder upkeep failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// An operator asked to end a duel (NOTIFY `duel_commands`, payload the duel id, from
    /// `ops.end_duel`). Every instance hears it; the first to apply it ends the duel and the
    /// others find it over. The health job picks up requests nobody heard.
    func endDuel(_ duel: String) {
        delivery.submit(.end(atMs: Clock.nowMs()), to: duel) { [self] _, result in
            switch result {
            case .success(let update?):
                delivery.apply(update)
                if update.events.last?.kind == .complete {
                    logger.notice("duel ended by an operator", metadata: [LogKey.duel: .string(duel)])
                }
            case .success(nil), .failure(is StoreError):
                break  // already over, or no such duel: nothing left to do
            case .failure(let error):
                // The health job retries the pending request.
                if !((error as? PGError)?.isConnectionFailure ?? false) {
                    logger.warning("ending a duel failed", metadata: [LogKey.duel: .string(duel), "error": "\(error)"])
                }
                return
            }
            jobs.database(for: nil, priority: .background, { db in try DuelRepository(db).markDuelEndsDone(duel: duel) }) { _, _ in }
        }
    }
}
