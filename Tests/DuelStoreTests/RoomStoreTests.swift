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
            player: host, bank: "world-capitals", questions: 3, answerMs: 5_000, maxPlayers: 2, nowMs: StoreFixture.nowMs(), outbox: Outbox())
        // The leave, held open: its DELETEs are done but not committed.
        let leaver = try store.connect()
        defer { leaver.close() }
        try leaver.execute(script: "BEGIN")
        try leaver.query("DELETE FROM room_members WHERE player_id = \(host)::uuid")
        try leaver.query("DELETE FROM rooms WHERE host = \(host)::uuid")
        let starting = Task {
            // Sees the membership (the leave is not committed), then waits on the room's lock.
            try await store.pool.run { db in
                try RoomRepository(db).startRoom(player: host, configuration: .standard, nowMs: StoreFixture.nowMs(), outbox: Outbox())
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

    /// One delivery route (issue 22): a room op puts its event in its transaction's outbox, and
    /// announces it at commit under the committing instance's origin with the transaction's
    /// number, the same event the outbox holds for local delivery. A refused op adds nothing, and
    /// a later change of the room has a higher number.
    @Test func aRoomOpsOutboxIsAnnouncedAtCommitWithItsOriginAndOrder() async throws {
        let store = try StoreFixture()
        let players = try await store.players(2, prefix: "outbox")
        let listener = try store.connect()
        defer { listener.close() }
        try listener.execute(script: "LISTEN \(PlayerEvent.channel)")
        let db = try store.connect()
        defer { db.close() }
        db.notificationOrigin = "inst1"
        let outbox = Outbox()
        let room = try RoomRepository(db).createRoom(
            player: players[0], bank: "world-capitals", questions: 3, answerMs: 5_000, maxPlayers: 2,
            nowMs: StoreFixture.nowMs(), outbox: outbox)
        #expect(outbox.events.count == 1)
        let created = try #require(outbox.events.first)
        #expect(created.players == [players[0]] && created.topic == "room:" + room.code && created.origin == "inst1")
        #expect(created.order > 0)
        #expect(throws: StoreError.self) {
            try RoomRepository(db).joinRoom(player: players[1], code: "ZZZZZZ", nowMs: StoreFixture.nowMs(), outbox: outbox)
        }
        #expect(outbox.events.count == 1)
        _ = try RoomRepository(db).joinRoom(player: players[1], code: room.code, nowMs: StoreFixture.nowMs(), outbox: outbox)
        #expect(outbox.events.count == 2)
        #expect(outbox.events[1].order > created.order && Set(outbox.events[1].players) == Set(players))
        var heard: [PlayerEvent] = []
        for _ in 0..<50 where heard.count < 2 {
            heard += try listener.notifications().compactMap { PlayerEvent(payload: $0.payload) }
            if heard.count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(heard == outbox.events)
    }
}
