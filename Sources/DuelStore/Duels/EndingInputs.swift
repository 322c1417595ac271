import Foundation

/// The inputs that end games, held back by a lane for its next ending round (issue 25), which
/// applies the ends of several rounds' games in one transaction: one call of `record_progress`
/// and one ratings statement for all of them, where each round that ended a game or two paid
/// about 1 ms of Postgres's time for those calls whatever they held (bench/NOTES.md, item 37).
///
/// A round that would end games (``DuelRepository/applyCachedRound(_:lane:outbox:)``, with
/// ``DuelLaneState/holdsEndings``) commits without those games' inputs and answers them
/// ``HeldForEnding``; the lane keeps them here, with every later input of the same games, in
/// arrival order. The ending round is a round like any other: the game ends, and its ratings and
/// progress are written, in one transaction (docs/PROTOCOL.md, rule 9), and only then are its
/// inputs answered. Nothing is committed or answered early, so a crash loses nothing
/// acknowledged. What waits: the `complete` of a game (its last deadline, a forfeit) by at most
/// the window.
///
/// Pure bookkeeping; time comes in as an argument.
struct EndingInputs {
    /// The longest the first held input waits (0: nothing is held).
    let windowNs: UInt64
    /// How many games' ends make a round due at once.
    let maxGames: Int
    private(set) var items: [DuelInputItem] = []
    private(set) var completions: [DuelLanes.Completion] = []
    /// When the oldest held input was held (monotonic ns; 0 when none).
    private var sinceNs: UInt64 = 0

    init(windowMs: Double, maxGames: Int = 32) {
        windowNs = UInt64(max(0, windowMs) * 1e6)
        self.maxGames = maxGames
    }

    var isEmpty: Bool { items.isEmpty }

    mutating func hold(_ item: DuelInputItem, _ completion: @escaping DuelLanes.Completion, nowNs: UInt64) {
        if items.isEmpty { sinceNs = nowNs }
        items.append(item)
        completions.append(completion)
    }

    /// Whether the ending round is due at `nowNs`, `games` being the games held.
    func isDue(games: Int, nowNs: UInt64) -> Bool {
        !items.isEmpty && (games >= maxGames || nowNs >= sinceNs + windowNs)
    }

    /// How long until the round is due (for an idle lane's wait), or nil when nothing is held.
    func remainingNs(nowNs: UInt64) -> UInt64? {
        guard !items.isEmpty else { return nil }
        return sinceNs + windowNs > nowNs ? sinceNs + windowNs - nowNs : 0
    }

    /// Takes everything held, for the ending round.
    mutating func take() -> (items: [DuelInputItem], completions: [DuelLanes.Completion]) {
        defer {
            items = []
            completions = []
            sinceNs = 0
        }
        return (items, completions)
    }
}

/// The result a round gives an input it held back for the lane's ending round (``EndingInputs``):
/// the lane keeps the input and answers it after that round. Never reaches a caller of the lanes.
struct HeldForEnding: Error {}
