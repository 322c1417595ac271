import DuelCore
import Testing

@testable import DuelStore

/// The lanes' state cache keeps live duels up to its limit but only the last
/// `finishedLimit` finished ones (issue 10 item 14).
struct DuelCacheTests {
    func duel(_ id: String) -> Duel {
        let players = [DuelPlayer(id: "a", username: "a", rating: .newPlayer),
                       DuelPlayer(id: "b", username: "b", rating: .newPlayer)]
        let questions = (0..<3).map {
            DuelQuestion(id: Int64($0), prompt: "q\($0)", choices: ["x", "y"], correctChoice: 0)
        }
        return Duel.start(id: id, bank: "bank", players: players, questions: questions,
                          configuration: .standard, nowMs: 0)!.0
    }

    @Test func finishedDuelsAreFewLiveOnesStay() {
        var cache = DuelCache(limit: 10_000)
        for index in 0..<50 { cache.remember(duel("live-\(index)"), version: 1) }
        for index in 0..<1_500 {
            var finished = duel("done-\(index)")
            _ = finished.apply(.forfeit(player: "a", atMs: 10))
            #expect(finished.phase == .finished)
            cache.remember(finished, version: 2)
        }
        #expect(cache.count == 50 + cache.finishedLimit)
        #expect(cache.state(of: "live-0", version: 1) != nil)
        #expect(cache.state(of: "done-0", version: 2) == nil)
        #expect(cache.state(of: "done-1499", version: 2) != nil)
    }
}
