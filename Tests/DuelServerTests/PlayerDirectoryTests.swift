import Testing

@testable import DuelServer

struct PlayerDirectoryTests {
    @Test func firstAndLastConnectionsOfAPlayer() {
        var directory = PlayerDirectory()
        let first = directory.attach(1, to: "p")
        let second = directory.attach(2, to: "p")
        #expect(first && !second)
        #expect(directory.isLocal("p") && directory.playerCount == 1)
        #expect(directory.connections(of: "p") == [1, 2])
        directory.markShared("p")
        let notLast = directory.detach(1, from: "p")
        #expect(!notLast && directory.shared == ["p"])
        let last = directory.detach(2, from: "p")
        #expect(last && !directory.isLocal("p") && directory.shared.isEmpty)
        let unknown = directory.detach(3, from: "p")
        #expect(!unknown)
    }

    @Test func onlyPlayersHeldHereAreMarkedShared() {
        // Every instance hears every presence_shared; remembering strangers grew without end.
        var directory = PlayerDirectory()
        directory.markShared("stranger")
        #expect(directory.shared.isEmpty)
        _ = directory.attach(1, to: "p")
        _ = directory.detach(1, from: "p")
        directory.markShared("p")  // a late callback after the last connection closed
        #expect(directory.shared.isEmpty)
    }

    @Test func connectionsPerAddress() {
        var directory = PlayerDirectory()
        directory.opened(address: "a")
        directory.opened(address: "a")
        directory.closed(address: "a")
        #expect(directory.connections(from: "a") == 1)
        directory.closed(address: "a")
        directory.closed(address: "a")
        #expect(directory.connections(from: "a") == 0)
    }
}
