import DuelStore
import Testing

@testable import DuelServer

struct DuelBookTests {
    let local: Set<String> = ["me"]
    func isLocal(_ player: String) -> Bool { local.contains(player) }

    @Test func anotherInstancesDuelsAreIgnored() {
        var book = DuelBook()
        let ranges = [
            DuelNotification.Range(duelID: "theirs", firstSeq: 1, lastSeq: 2, players: ["x", "y"]),
            DuelNotification.Range(duelID: "under-way", firstSeq: 5, lastSeq: 6),
            DuelNotification.Range(duelID: "mine", firstSeq: 1, lastSeq: 2, players: ["me", "y"]),
        ]
        let wanted = book.wanted(ranges, isLocal: isLocal)
        let tracked = book.trackedCount
        #expect(wanted.map(\.duelID) == ["mine"])
        #expect(wanted.first?.afterSeq == 0)
        #expect(tracked == 1)
    }

    @Test func knownEventsAreNotReadAgainAndLeftDuelsAreForgotten() {
        var book = DuelBook()
        book.setPlayers(["me", "y"], of: "d")
        book.saw("d", seq: 4)
        let already = book.wanted([.init(duelID: "d", firstSeq: 3, lastSeq: 4)], isLocal: isLocal)
        let newer = book.wanted([.init(duelID: "d", firstSeq: 5, lastSeq: 6)], isLocal: isLocal)
        #expect(already.isEmpty)
        #expect(newer.map(\.afterSeq) == [4])
        // The local player left: the duel is forgotten, and later announcements of it ignored.
        let left = book.wanted([.init(duelID: "d", firstSeq: 7, lastSeq: 7)], isLocal: { _ in false })
        let tracked = book.trackedCount
        let later = book.wanted([.init(duelID: "d", firstSeq: 8, lastSeq: 8)], isLocal: isLocal)
        #expect(left.isEmpty && tracked == 0 && later.isEmpty)
    }

    @Test func finishedDuelsStayFinishedWithinTheLimit() {
        var book = DuelBook(finishedLimit: 2)
        book.setPlayers(["me", "y"], of: "a")
        book.finish("a")
        #expect(book.isFinished("a") && book.players(of: "a") == nil)
        book.setPlayers(["me", "y"], of: "a")
        #expect(book.players(of: "a") == nil)
        book.finish("b")
        book.finish("c")
        #expect(!book.isFinished("a") && book.isFinished("b") && book.isFinished("c"))
    }

    @Test func onlyTheNewestUpdateArmsTheTimer() {
        var book = DuelBook()
        let verdicts = [3, 2, 3, 5].map { book.shouldArmTimer("d", seq: $0) }
        #expect(verdicts == [true, false, true, true])
    }

    @Test func announcementsOnlyWhenAnotherInstanceNeedsThem() {
        var book = DuelBook()
        #expect(book.needsAnnouncement("unknown", isLocal: isLocal, shared: []))
        book.setPlayers(["me", "me"], of: "both-here")
        #expect(!book.needsAnnouncement("both-here", isLocal: isLocal, shared: []))
        #expect(book.needsAnnouncement("both-here", isLocal: isLocal, shared: ["me"]))
        book.setPlayers(["me", "y"], of: "split")
        #expect(book.needsAnnouncement("split", isLocal: isLocal, shared: []))
    }
}
