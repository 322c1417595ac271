import DuelCore
import DuelStore
import Foundation
import Logging

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

    /// `alone`: no other instance has run for a while (``HealthStatus/isAlone(nowMs:)``).
    func intervalMs(_ configuration: ServerConfiguration, alone: Bool = false) -> Int64 {
        switch self {
        case .matcher: max(10, configuration.jobs.matchIntervalMs)
        case .sweep: max(10, alone ? configuration.jobs.aloneSweepIntervalMs : configuration.jobs.sweepIntervalMs)
        case .health: 1_000
        case .social: max(10, configuration.jobs.socialIntervalMs)
        }
    }
}

/// The periodic jobs and the duel deadlines: the matcher, deadlines firing, the sweep, health
/// and the metrics read from the database, the hourly upkeep, the room and challenge upkeep,
/// operators' ends of duels, and resynchronizing after the LISTEN connection came back.
/// lws thread only.
final class PeriodicJobs: @unchecked Sendable {
    let configuration: ServerConfiguration
    let connections: ConnectionTable
    let jobs: ServerJobs
    let delivery: DuelDelivery
    let timer: DeadlineTimer
    let lanes: DuelLanes
    let metrics: Metrics
    let logger: Logger
    let instance: String
    /// What `/healthz` says and whether other instances run (see ``HealthStatus``).
    var health: HealthStatus
    /// When matcher passes run (see ``MatcherGate``).
    private var matcher: MatcherGate
    /// When ``upkeepIfDue(nowMs:)`` next runs the upkeep.
    var nextUpkeepMs: Int64

    init(configuration: ServerConfiguration, connections: ConnectionTable, jobs: ServerJobs, delivery: DuelDelivery,
         timer: DeadlineTimer, lanes: DuelLanes, metrics: Metrics, instance: String, logger: Logger) {
        self.configuration = configuration
        self.connections = connections
        self.jobs = jobs
        self.delivery = delivery
        self.timer = timer
        self.lanes = lanes
        self.metrics = metrics
        self.instance = instance
        self.logger = logger
        nextUpkeepMs = Clock.nowMs() + configuration.jobs.upkeepIntervalMs
        matcher = MatcherGate(spacingMs: configuration.jobs.matchSpacingMs,
                              evictionIntervalMs: PeriodicJob.matcher.intervalMs(configuration))
        health = HealthStatus(startMs: Clock.nowMs())
    }

    /// At start: health, the live duels' timers, a first matcher pass, and the periodic jobs
    /// (keys of the deadline schedule that duel ids never collide with).
    func start() {
        checkHealth()
        rescheduleLiveDuels()
        runMatcher()
        let now = Clock.nowMs()
        for job in PeriodicJob.allCases { timer.schedule(job.rawValue, atMs: now + job.intervalMs(configuration)) }
    }

    /// The loop's timer fired: runs what is due, schedules what comes next.
    func timerFired() {
        let now = Clock.nowMs()
        for (key, dueMs) in timer.popDue(nowMs: now) {
            if let job = PeriodicJob(rawValue: key) {
                run(job)
                timer.schedule(key, atMs: now + job.intervalMs(configuration, alone: health.isAlone(nowMs: now)))
            } else if !timer.fireHandler(of: key) {
                fireDeadline(duel: key, dueMs: dueMs)
            }
        }
        timer.rearm()
    }

    private func run(_ job: PeriodicJob) {
        switch job {
        case .matcher: runMatcher()
        case .sweep: sweep()
        case .health: checkHealth()
        case .social: socialUpkeep()
        }
    }

    /// Claims pairs in every bank with waiters, when ``MatcherGate`` lets a pass start (or arms
    /// the matcher's timer for when it will).
    func runMatcher(concurrent: Bool = false) {
        let now = Clock.nowMs()
        switch matcher.start(concurrent: concurrent, nowMs: now) {
        case .now: break
        case .coalesced: return
        case .at(let due):
            timer.schedule(PeriodicJob.matcher.rawValue, atMs: due)
            return
        }
        let evict = matcher.evicts(nowMs: now)
        let policy = configuration.matchPolicy
        let duelRules = configuration.duel
        let logger = self.logger
        let shared = connections.directory.shared
        let instance = self.instance
        jobs.database(for: nil, { db -> [DuelUpdate] in
            if evict { try QueueRepository(db).evictWaitersOfShortBanks(questionsNeeded: duelRules.questionCount) }
            var created: [DuelUpdate] = []
            for bank in try QueueRepository(db).banksWithWaitingPairs() {
                // One bank's failure must not stop the others' matchmaking.
                do {
                    created += try QueueRepository(db).claimPairs(
                        bankID: bank, policy: policy, configuration: duelRules, nowMs: Clock.nowMs(), shared: shared,
                        instance: instance)
                } catch {
                    logger.warning("matcher: bank failed", metadata: ["bank": "\(bank)", "error": "\(error)"])
                }
            }
            return created
        }) { [self] _, result in
            if case .success(let created) = result { created.forEach(delivery.apply) }
            if case .failure(let error) = result { logger.warning("matcher failed", metadata: ["error": "\(error)"]) }
            let next = matcher.finished(created: (try? result.get())?.count)
            for _ in 0..<next.passes { runMatcher(concurrent: next.concurrent) }
        }
    }

    /// A duel's deadline fired (loop timer or sweep): apply what is due. `dueMs`: when it was
    /// due (the stored deadline, for the sweep), from which the metrics time how late the
    /// deadline's events went out: a reveal's lateness as the server sees it. A failed attempt is
    /// retried, still timed from `dueMs`.
    private func fireDeadline(duel: String, dueMs: Int64) {
        delivery.submit(.advance(atMs: Clock.nowMs()), to: duel) { [self] _, result in
            switch result {
            case .success(let update?):
                delivery.apply(update)
                metrics.deadlineLateness.observe(ms: Double(max(0, Clock.nowMs() - dueMs)))
            case .success(nil): break
            case .failure(let error):
                logger.warning("deadline failed; retrying", metadata: [LogKey.duel: .string(duel), "error": "\(error)"])
                timer.retry(duel, atMs: Clock.nowMs() + 500, firstDueMs: dueMs)
            }
        }
    }

    /// Deadlines nobody here holds (another instance crashed, or this one restarted).
    private func sweep() {
        // A little grace, so the instance that owns a timer normally fires it first.
        let cutoff = Clock.nowMs() - 200
        jobs.database(for: nil, { db in try DuelRepository(db).dueDuels(nowMs: cutoff) }) { [self] _, result in
            if case .success(let due) = result { for duel in due { fireDeadline(duel: duel.id, dueMs: duel.deadlineMs) } }
        }
        // Ended games whose lane could not settle them (a crash or a failed transaction right after
        // the round's commit: on Citus everything they owe, on plain Postgres their progress).
        // Their players hear of it here, as after a settling lane; the notifications are
        // announced, since the players may be held anywhere. On plain Postgres too: a server that
        // died between a round and its progress settler's grant left the record, whatever this
        // one's `--progress-gather-ms` (bench/NOTES.md, item 38).
        jobs.database(for: nil, delivering: { db, outbox in try DuelRepository(db).settlePending(outbox: outbox) }) {
            [self] _, result in
            switch result {
            case .failure(let error):
                logger.warning("settling ended games failed", metadata: ["error": "\(error)"])
            case .success(let report):
                if report.settled > 0 {
                    logger.info("settled ended games left by a lane", metadata: ["games": "\(report.settled)"])
                }
                for failure in report.failures {
                    logger.warning("an ended game could not be settled", metadata: ["error": .string(failure)])
                }
            }
        }
    }

    /// Re-arms the timers of every live duel (at start, and after the LISTEN connection was lost).
    private func rescheduleLiveDuels() {
        jobs.database(for: nil, { db in try DuelRepository(db).liveDuelDeadlines() }) { [self] _, result in
            if case .success(let live) = result {
                for (id, deadline) in live { timer.schedule(id, atMs: deadline) }
            }
        }
    }

    /// After the LISTEN connection came back: events may have been missed.
    func resynchronize() {
        rescheduleLiveDuels()
        for player in connections.directory.players {
            jobs.database(for: nil, { db in try DuelRepository(db).liveDuelID(player: player) }) { [self] _, result in
                guard case .success(let live?) = result else { return }
                delivery.resynchronize(player, duel: live.duelID, seq: live.lastSeq)
            }
        }
        runMatcher()
    }
}
