import DuelCore
import DuelStore
import Foundation
import Testing

/// Rooms in the store under races the server's tests cannot time.
@Suite struct RoomStoreTests {
    /// A `room_start` that read the player's room just before a leave (from another tab)
    /// committed and closed it must answer `unknown_room` (it trapped on the vanished room).
    @Test func aStartRacingTheLastLeaveIsUnknownRoom() async throws {
        let store = try StoreFixture()
        let host = try await store.players(1, prefix: "racer")[0]
        let setup = try store.connect()
        defer { setup.close() }
        _ = try RoomRepository(setup).createRoom(
            player: host, bank: "world-capitals", questions: 3, answerMs: 5_000, maxPlayers: 2, nowMs: StoreFixture.nowMs())
        // The leave, held open: its DELETEs are done but not committed.
        let leaver = try store.connect()
        defer { leaver.close() }
        try leaver.execute(script: "BEGIN")
        try leaver.query("DELETE FROM room_members WHERE player_id = \(host)::uuid")
        try leaver.query("DELETE FROM rooms WHERE host = \(host)::uuid")
        let starting = Task {
            // Sees the membership (the leave is not committed), then waits on the room's lock.
            try await store.pool.run { db in
                try RoomRepository(db).startRoom(player: host, configuration: .standard, nowMs: StoreFixture.nowMs())
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        try leaver.execute(script: "COMMIT")
        do {
            _ = try await starting.value
            Issue.record("started a game in a room that closed")
        } catch let error as StoreError {
            #expect(error.error.code == .unknownRoom)
        }
    }
}
