import DuelCore
import DuelStore

/// What this instance knows of the duels it delivers, and the decisions made from it:
/// which announced events are worth a read, which duels other instances must hear of,
/// which deadline update is the newest. Pure and owned by the core (lws thread only).
///
/// Kept per duel: the highest seq seen here, the duel's players, and the seq of the
/// update that armed its timer. A finished duel is forgotten except for its id, kept
/// among the last `finishedLimit` so that a late announcement of its last events is
/// not delivered twice.
struct DuelBook {
    private var seen: [String: Int] = [:]
    private var players: [String: [PlayerID]] = [:]
    private var timerSeqs: [String: Int] = [:]
    private var finished = Set<String>()
    private var finishedOrder: [String] = []
    private var finishedHead = 0
    let finishedLimit: Int
    /// Stored events still ahead of the clock (a question opened in its reveal's step), held
    /// until their time.
    var ahead = HeldEvents()

    init(finishedLimit: Int = 50_000) {
        self.finishedLimit = finishedLimit
    }

    /// Duels with delivery bookkeeping here (the `quizduel_tracked_duels` gauge).
    var trackedCount: Int { Set(seen.keys).union(players.keys).count }

    func isFinished(_ duel: String) -> Bool { finished.contains(duel) }
    func seenSeq(_ duel: String) -> Int? { seen[duel] }
    func players(of duel: String) -> [PlayerID]? { players[duel] }

    mutating func saw(_ duel: String, seq: Int) {
        seen[duel] = max(seen[duel] ?? 0, seq)
    }

    mutating func setPlayers(_ list: [PlayerID], of duel: String) {
        guard !finished.contains(duel) else { return }
        players[duel] = list
    }

    /// Whether an update with `seq` should (re)arm the duel's timer: only the newest does.
    mutating func shouldArmTimer(_ duel: String, seq: Int) -> Bool {
        guard seq >= (timerSeqs[duel] ?? 0) else { return false }
        timerSeqs[duel] = seq
        return true
    }

    mutating func finish(_ duel: String) {
        ahead.drop(duel)
        seen[duel] = nil
        timerSeqs[duel] = nil
        players[duel] = nil
        guard finished.insert(duel).inserted else { return }
        finishedOrder.append(duel)
        if finishedOrder.count - finishedHead > finishedLimit {
            finished.remove(finishedOrder[finishedHead])
            finishedHead += 1
            if finishedHead > 4_096 && finishedHead * 2 > finishedOrder.count {
                finishedOrder.removeFirst(finishedHead)
                finishedHead = 0
            }
        }
    }

    /// Of an announcement's ranges, the duels whose events must be read here, with the
    /// seq to read after. A duel not known here is another instance's: a new one names
    /// its players (taken when one is held here, `isLocal`), and one under way would be
    /// known if a player of it were (from its `init`, or from their sign-in). A known duel
    /// none of whose players is held here any more is forgotten. So other instances'
    /// duels cost neither a read nor memory here.
    mutating func wanted(_ ranges: [DuelNotification.Range], isLocal: (PlayerID) -> Bool) -> [(duelID: String, afterSeq: Int)] {
        var wanted: [(duelID: String, afterSeq: Int)] = []
        for range in ranges {
            let duel = range.duelID
            if finished.contains(duel) { continue }
            if players[duel] == nil && seen[duel] == nil {
                guard range.players.contains(where: isLocal) else { continue }
                players[duel] = range.players
            }
            if let known = seen[duel], known >= range.lastSeq { continue }
            if let list = players[duel], !list.contains(where: isLocal) {
                players[duel] = nil
                seen[duel] = nil
                continue
            }
            wanted.append((duel, seen[duel] ?? 0))
        }
        return wanted
    }

    /// Whether another instance must hear of the duel's next events: unless every player
    /// of it is held here and none is also connected elsewhere (`shared`). Unknown duels
    /// are announced.
    func needsAnnouncement(_ duel: String, isLocal: (PlayerID) -> Bool, shared: Set<PlayerID>) -> Bool {
        guard let list = players[duel] else { return true }
        return Announcement.needed(players: list, heldHere: isLocal, shared: shared)
    }
}
