/// The rules a bot checks as it plays one duel, frame by frame: seq numbers without gaps,
/// nothing shown before its reveal (rule 10), and final scores equal to the points the
/// reveals gave.
///
/// Pure: it reads frames and returns what they broke, and knows nothing of sockets, timers
/// or counters, so that the checks are unit-tested on frames alone (``BotPlayer`` feeds it
/// every event of its duel and counts what it returns in ``BotStats``). It keeps two fields
/// and a small array per duel and allocates nothing per frame once a duel's players are known.
struct DuelRules {
    /// The last seq seen: the next event must have the one after it.
    private(set) var lastSeq: Int
    /// Points per player, summed from the reveals seen, for the final scores.
    private var pointsFromReveals: [(player: UInt64, points: Int)] = []

    /// `lastSeq` is the seq of the duel's `init` (its first event).
    init(lastSeq: Int = 1) {
        self.lastSeq = lastSeq
    }

    /// Checks one event of the duel (`seq` is its seq) and remembers what later checks need.
    mutating func check(_ frame: BotFrame, seq: Int) -> RuleBreaks {
        var breaks = RuleBreaks()
        if seq != lastSeq + 1 { breaks.seqGap += 1 }
        lastSeq = seq
        // Rule 10 as the bot sees it: no reveal while a question is open or counting down,
        // no correct answer inside the question, no player's pick before the reveal.
        if (frame.state == .question || frame.state == .countdown) && frame.hasReveal { breaks.earlyReveal += 1 }
        if frame.question.hasCorrectChoice { breaks.leakedCorrectChoice += 1 }
        if frame.answers.contains(where: { $0.hasChoice }) { breaks.leakedChoice += 1 }
        switch frame.event {
        case .reveal:
            guard frame.hasReveal, frame.reveal.correctChoice != nil else { break }
            for (player, points) in frame.reveal.points {
                if let at = pointsFromReveals.firstIndex(where: { $0.player == player }) {
                    pointsFromReveals[at].points += points
                } else {
                    pointsFromReveals.append((player, points))
                }
            }
        case .complete:
            for player in frame.players {
                guard let id = player.id else { continue }
                let fromReveals = pointsFromReveals.first { $0.player == id }?.points ?? 0
                if (player.score ?? -1) != fromReveals { breaks.scoreMismatch += 1 }
            }
        default:
            break
        }
        return breaks
    }
}

/// What one frame broke, by rule: counts, since a final scoreboard can be wrong for
/// several players at once. Named in the report's `violations` by ``forEach(_:)``.
struct RuleBreaks: Equatable {
    var seqGap = 0
    var earlyReveal = 0
    var leakedCorrectChoice = 0
    var leakedChoice = 0
    var scoreMismatch = 0

    var isEmpty: Bool { self == RuleBreaks() }

    /// Each rule broken, by its name in the report, with how many times.
    func forEach(_ body: (_ name: String, _ count: Int) -> Void) {
        if seqGap > 0 { body("seq_gap", seqGap) }
        if earlyReveal > 0 { body("early_reveal", earlyReveal) }
        if leakedCorrectChoice > 0 { body("leaked_correct_choice", leakedCorrectChoice) }
        if leakedChoice > 0 { body("leaked_choice", leakedChoice) }
        if scoreMismatch > 0 { body("score_mismatch", scoreMismatch) }
    }
}
