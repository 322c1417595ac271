/// What a finished game says about one of its players, for their progress (issue 14): the
/// store turns these into XP, streak days, achievements and weekly goals, in the transaction
/// that finishes the game. Facts, not points: what pays and how much is decided in one place,
/// `record_progress` with its table `progress_rules` (docs/ARCHITECTURE.md, "Progress"), which
/// also knows what the engine does not (the bank's owner, the player's time zone).
public struct GameFacts: Sendable, Equatable {
    public let player: PlayerID
    /// Questions this player answered right.
    public let correct: Int
    /// Questions asked (opened) in the game.
    public let questions: Int
    /// Questions this player answered, right or wrong: a game with none pays nothing (issue 23).
    public let answered: Int
    /// Other players still in the game when its first question opened (0 when none opened): a
    /// first place won only by the others leaving before any question pays nothing (issue 23).
    public let rivalsAtFirstQuestion: Int
    /// Placed first, alone or shared, in a game of two or more (a win or a shared first place).
    public let firstPlace: Bool
    /// Placed first alone in a game of two or more.
    public let won: Bool
    /// Still in the game at its end: not forfeited or abandoned.
    public let stayed: Bool
    /// The quickest right answer, in ms from its question's opening; nil with none right.
    public let fastestCorrectMs: Int64?
    /// Players seated in the game.
    public let players: Int

    public init(player: PlayerID, correct: Int, questions: Int, answered: Int, rivalsAtFirstQuestion: Int,
                firstPlace: Bool, won: Bool, stayed: Bool, fastestCorrectMs: Int64?, players: Int) {
        self.player = player
        self.correct = correct
        self.questions = questions
        self.answered = answered
        self.rivalsAtFirstQuestion = rivalsAtFirstQuestion
        self.firstPlace = firstPlace
        self.won = won
        self.stayed = stayed
        self.fastestCorrectMs = fastestCorrectMs
        self.players = players
    }
}

extension Duel {
    /// What this game's end says about each player: none before the end, and none after an
    /// operator's end, which grants nothing as it rates nothing. The store settles a finished
    /// game from its state (docs/ARCHITECTURE.md, "Settling a finished game"), so the facts are
    /// a function of the state, not of the step that ended it.
    public var completionFacts: [GameFacts] {
        guard hasCompletionFacts, let result else { return [] }
        return facts(placements: result.placements ?? [:])
    }

    /// Whether ``completionFacts`` has any, decided without building them (the store asks on
    /// every cached round that ends a game): a finished game has facts for every player but a
    /// recording, and every game has a player, unless an operator ended it.
    public var hasCompletionFacts: Bool { result.map { $0.reason != .ended } ?? false }

    /// Each player's facts of this finished game, from its rounds and placements.
    func facts(placements: [PlayerID: Int]) -> [GameFacts] {
        let firsts = placements.values.filter { $0 == 1 }.count
        // Who was still seated when the first question opened (nobody, if none opened).
        // A recording is no rival (a first place against it is not a win), and has no progress.
        let seatedAtFirst = rounds.first.map { first in
            Set(players.filter { !$0.isRecorded && $0.leftAtMs.map { $0 > first.opensAtMs } ?? true }.map(\.id))
        } ?? []
        return players.filter { !$0.isRecorded }.map { player in
            let right = rounds.compactMap { round -> Int64? in
                guard let answer = round.answer(of: player.id), answer.correct else { return nil }
                return answer.atMs - round.opensAtMs
            }
            return GameFacts(
                player: player.id, correct: right.count, questions: rounds.count,
                answered: rounds.filter { $0.answer(of: player.id) != nil }.count,
                rivalsAtFirstQuestion: seatedAtFirst.subtracting([player.id]).count,
                firstPlace: players.count >= 2 && placements[player.id] == 1,
                won: players.count >= 2 && placements[player.id] == 1 && firsts == 1, stayed: player.leftAtMs == nil,
                fastestCorrectMs: right.min(), players: players.count)
        }
    }
}
