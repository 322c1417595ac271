import DuelCore
import Foundation
import Logging
import Synchronization

/// Grants the progress of the games the lanes end, beside them (issue 25; docs/ARCHITECTURE.md,
/// "Settling a finished game"): a thread with a connection of its own, on plain Postgres while
/// events are not announced.
///
/// At human pace about 40 rounds a second ended a game or two, and each paid `record_progress`'s
/// fixed cost (about 1 ms of Postgres's time a call, whatever it holds) on the lane's backend,
/// while every other input of the lane waited (bench/NOTES.md, items 37-38). Now such a round
/// writes the games' ends and ratings (docs/PROTOCOL.md, rule 9), practice counts and markers as
/// before, and records in `duel_settlements` that they still owe progress; the lane hands the
/// debts here with the replies of those games' inputs, which it holds back. The settler gathers
/// the debts of a short window (or of `maxGames` games), grants them in one transaction that
/// deletes their records (``DuelRepository/settle(_:announces:outbox:payloads:)``), and only
/// then runs the held replies, so a game's `complete` reaches its players after its XP is
/// written, as the web client's end screen expects.
///
/// A crash between the round and the settlement leaves the record, which the sweep settles from
/// the game's log (``DuelRepository/settlePending(limit:olderThanSeconds:outbox:)``); the delete
/// makes it once. A failed settlement leaves its records to the sweep the same way, and the
/// replies go out anyway: the games' ends are committed.
final class ProgressSettler: Sendable {
    /// A reply a round held back until its game's progress is granted.
    struct Reply: Sendable {
        let completion: DuelLanes.Completion
        let result: Result<DuelUpdate?, Error>
    }

    private struct Waiting {
        var owed = DuelSettlements()
        var replies: [Reply] = []
        /// When the oldest waiting debt arrived (monotonic ns).
        var sinceNs: UInt64 = 0
        var closed = false
        var settlements = 0
    }

    private let state = Mutex(Waiting())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let conninfo: String
    private let windowNs: UInt64
    private let maxGames: Int
    private let afterBatch: AfterBatch
    private let logger: Logger

    /// - Parameters:
    ///   - windowMs: the longest a debt waits for others to share its transaction.
    ///   - maxGames: how many games' debts make a settlement due at once.
    ///   - afterBatch: the lanes' hook, run after each settlement's replies (they only queue work).
    init(conninfo: String, windowMs: Double, maxGames: Int = 64, afterBatch: AfterBatch, logger: Logger) {
        self.conninfo = conninfo
        windowNs = UInt64(max(0, windowMs) * 1e6)
        self.maxGames = maxGames
        self.afterBatch = afterBatch
        self.logger = logger
        let thread = Thread { [self] in
            run()
            stopped.signal()
        }
        thread.name = "progress"
        thread.start()
    }

    /// Settlements made so far (``DuelLanes/Statistics``).
    var settlements: Int { state.withLock { $0.settlements } }

    /// Takes `owed` (games a committed round ended, recorded as owing progress) and the replies
    /// held back for them. After shutdown the replies run at once and the records wait for the sweep.
    func submit(_ owed: DuelSettlements, replies: [Reply]) {
        let nowNs = DispatchTime.now().uptimeNanoseconds
        let (accepted, wake) = state.withLock { waiting -> (Bool, Bool) in
            guard !waiting.closed else { return (false, false) }
            let first = waiting.owed.isEmpty
            if first { waiting.sinceNs = nowNs }
            waiting.owed.merge(owed)
            waiting.replies += replies
            return (true, first || waiting.owed.count >= maxGames)
        }
        if accepted {
            if wake { wakeUp.signal() }
            return
        }
        replies.forEach { $0.completion($0.result) }
        afterBatch.run(Outbox())
    }

    /// Settles what waits, then stops the thread and closes its connection.
    func shutdown() {
        state.withLock { $0.closed = true }
        wakeUp.signal()
        stopped.wait()
    }

    private func run() {
        var connection: PGConnection?
        var backoff = Backoff()
        while true {
            let nowNs = DispatchTime.now().uptimeNanoseconds
            let (owed, replies, closed, waitNs) = state.withLock { waiting -> (DuelSettlements, [Reply], Bool, UInt64?) in
                if waiting.owed.isEmpty { return (DuelSettlements(), [], waiting.closed, nil) }
                let dueNs = waiting.sinceNs + windowNs
                guard waiting.closed || waiting.owed.count >= maxGames || nowNs >= dueNs else {
                    return (DuelSettlements(), [], false, dueNs - nowNs)
                }
                defer {
                    waiting.owed = DuelSettlements()
                    waiting.replies = []
                    waiting.settlements += 1
                }
                return (waiting.owed, waiting.replies, waiting.closed, nil)
            }
            if owed.isEmpty {
                if closed { break }
                if let waitNs {
                    _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(waitNs)))
                } else {
                    wakeUp.wait()
                }
                continue
            }
            let outbox = Outbox()
            if connection?.isOpen != true, backoff.mayTry(now: Date()) {
                do {
                    connection = try DuelLane.openConnection(conninfo, origin: "", distributed: false)
                    backoff.succeeded()
                } catch {
                    backoff.failed(now: Date())
                }
            }
            do {
                guard let connection, connection.isOpen else { throw PGError.client("database unavailable") }
                try DuelRepository(connection).settle(owed, announces: false, outbox: outbox)
            } catch {
                logger.warning("progress: ended games left to the sweep to settle",
                               metadata: ["games": "\(owed.count)", "error": "\(error)"])
            }
            replies.forEach { $0.completion($0.result) }
            afterBatch.run(outbox)
        }
        connection?.close()
    }
}
