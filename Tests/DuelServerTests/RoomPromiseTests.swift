import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

/// Waits for the next `name` event whose record passes `match`, skipping the others.
func nextEvent(_ player: TestPlayer, _ name: String, timeout: Duration = .seconds(5), where match: (JSONValue) -> Bool) async -> JSONValue? {
    while let event = await player.client.nextEvent(name, timeout: timeout) {
        if match(event) { return event }
    }
    return nil
}

extension ServerTests {
    /// Promises of PROTOCOL.md's "Rooms, challenges and rematches" that RoomTests and
    /// ChallengeTests leave out: busy players, who may rematch what, withdrawing, absent
    /// members, sign-in, other instances, and joining.
    @Suite(.serialized) struct RoomPromiseTests {
        @Test func busyPlayersCannotAcceptChallengesOrRematch() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let made = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            guard let id = made["data"]?["challenge_id"]?.string else { throw DuelClientError.timeout(made.serialized) }
            let accept: JSONObject = ["challenge_id": .string(id)]
            // The target in a room, then in a game.
            _ = try await b.client.request("room_create", ["bank": "world-capitals"])
            #expect(try await b.client.request("challenge_accept", accept)["code"] == "in_room")
            _ = try await b.client.request("room_leave")
            let practice = try await b.client.request("practice", ["bank": "world-capitals"])
            #expect(try await b.client.request("challenge_accept", accept)["code"] == "in_duel")
            if let duel = practice["data"]?["duel_id"] { _ = try await b.client.request("forfeit", ["duel_id": duel]) }
            // A busy challenger: the code of their state, naming them.
            _ = try await a.client.request("queue", ["bank": "general-science"])
            let busy = try await b.client.request("challenge_accept", accept)
            #expect(busy["code"] == "already_queued")
            #expect(busy["message"]?.string?.contains(a.username) == true)
            _ = try await a.client.request("cancel")
            // Through all of it the challenge stayed pending: now it is accepted.
            #expect(try await b.client.request("challenge_accept", accept)["data"]?["duel_id"]?.string != nil)

            // Rematch: the asker in a room is in_room; a busy opponent is named.
            let (c, d, ranked) = try await startDuel(server.url)
            _ = try await c.client.request("forfeit", ["duel_id": .string(ranked)])
            _ = await d.client.nextEvent("complete")
            _ = try await c.client.request("room_create", ["bank": "world-capitals"])
            #expect(try await c.client.request("rematch", ["duel_id": .string(ranked)])["code"] == "in_room")
            _ = try await c.client.request("rematch", ["duel_id": .string(ranked)])  // refused: no offer stands
            #expect(try await d.client.request("rematch", ["duel_id": .string(ranked)])["data"]?["state"] == "offered")
            _ = try await c.client.request("room_leave")
            _ = try await d.client.request("queue", ["bank": "general-science"])
            let taken = try await c.client.request("rematch", ["duel_id": .string(ranked)])
            #expect(taken["code"] == "already_queued" && taken["message"]?.string?.contains(d.username) == true)
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM duels WHERE rematch_of IS NOT NULL")[0].int("n") == 0)
        }

        @Test func onlyRankedDuelsThatWereFinishedByPlayHaveRematches() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let db = try server.database()
            defer { db.close() }
            // Ended by an operator.
            let (a, b, ended) = try await startDuel(server.url)
            try db.query("SELECT ops.end_duel(\(ended)::uuid, 'test')")
            _ = await a.client.nextEvent("complete")
            _ = await b.client.nextEvent("complete")
            let refused = try await a.client.request("rematch", ["duel_id": .string(ended)])
            #expect(refused["code"] == "bad_request" && refused["message"] == "duel_id: an operator ended that duel")
            // A challenge's game and a practice game.
            let made = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            let accepted = try await b.client.request("challenge_accept", ["challenge_id": made["data"]?["challenge_id"] ?? .null])
            guard let friendly = accepted["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(accepted.serialized) }
            _ = try await a.client.request("forfeit", ["duel_id": .string(friendly)])
            _ = await b.client.nextEvent("complete")
            #expect(try await b.client.request("rematch", ["duel_id": .string(friendly)])["code"] == "bad_request")
            let practice = try await a.client.request("practice", ["bank": "world-capitals"])
            guard let solo = practice["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(practice.serialized) }
            _ = try await a.client.request("forfeit", ["duel_id": .string(solo)])
            _ = await a.client.nextEvent("complete")
            #expect(try await a.client.request("rematch", ["duel_id": .string(solo)])["code"] == "bad_request")
            #expect(try db.query("SELECT count(*) AS n FROM rematch_offers")[0].int("n") == 0)
            #expect(try db.query("SELECT count(*) AS n FROM duels WHERE mode = 'ranked'")[0].int("n") == 1)
        }

        @Test func theChallengerWithdrawsAndABannedPlayerIsUnknown() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let made = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            guard let id = made["data"]?["challenge_id"]?.string else { throw DuelClientError.timeout(made.serialized) }
            // Both players hear the INSERT (the challenger's other screens too).
            #expect(await a.client.nextEvent("challenge")?["type"] == "INSERT")
            #expect(try await a.client.request("challenge_decline", ["challenge_id": .string(id)])["data"]?["challenge"]?["state"] == "declined")
            #expect(await nextEvent(b, "challenge") { $0["record"]?["state"] == "declined" } != nil)
            #expect(try await b.client.request("challenge_accept", ["challenge_id": .string(id)])["code"] == "unknown_challenge")
            let db = try server.database()
            defer { db.close() }
            try db.query("SELECT ops.ban_player(\(b.username), 'test')")
            #expect(try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])["code"] == "unknown_player")
        }

        @Test func aMemberAbsentWhenTheGameStartsIsAbandoned() async throws {
            let server = try TestServer.start { $0.duel.abandonAfterMs = 1_000; $0.jobs.socialIntervalMs = 5_000 }
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 3)
            let absent = room.members[1]
            absent.client.close()
            _ = await absent.client.waitClosed()
            try await Task.sleep(for: .milliseconds(300))
            let started = try await room.host.client.request("room_start")
            guard let duel = started["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(started.serialized) }
            // The others play on; the absent member is out once the delay passes.
            let completes = try await playRoomGame(server, [room.host, room.members[0]], duel: duel)
            let record = completes[1]["record"]
            #expect(record?["result"]?["placements"]?[absent.id] == 3)
            guard case .array(let seats)? = record?["players"] else { throw DuelClientError.timeout("players") }
            #expect(seats.first { $0["id"] == .string(absent.id) }?["connected"] == false)
        }

        @Test func signingInBringsTheRoomAndWaitingChallenges() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 2)
            let member = room.members[0]
            // A second connection while the first stays (never marked gone): `auth` brings the room.
            let (second, _) = try await member.reconnect(server.url)
            #expect(await second.client.nextEvent("room")?["record"]?["code"] == .string(room.code))
            // A challenge made while the member is away comes with `login`.
            member.client.close()
            second.client.close()
            _ = await member.client.waitClosed()
            _ = await second.client.waitClosed()
            let made = try await room.host.client.request(
                "challenge", ["username": .string(member.username), "bank": "world-capitals"])
            let client = try DuelClient(url: server.url)
            try await client.connect()
            let login = try await client.request("login", ["username": .string(member.username), "password": "correct horse battery"])
            #expect(login["ok"] == true)
            #expect(await client.nextEvent("room", timeout: .seconds(5))?["record"]?["code"] == .string(room.code))
            #expect(await client.nextEvent("challenge", timeout: .seconds(5))?["record"]?["id"] == made["data"]?["challenge_id"])
        }

        @Test func roomEventsReachMembersOnTheOtherInstance() async throws {
            let first = try TestServer.start()
            let second = try first.another()
            defer { first.stop(); second.stop() }
            let host = try await TestPlayer.signUp(first.url)
            let created = try await host.client.request("room_create", ["bank": "world-capitals"])
            guard let code = created["data"]?["room"]?["code"]?.string else { throw DuelClientError.timeout(created.serialized) }
            let member = try await TestPlayer.signUp(second.url)
            // Joining your own room again replies the room and changes nothing.
            _ = try await member.client.request("room_join", ["code": .string(code)])
            let again = try await member.client.request("room_join", ["code": .string(code)])
            guard case .array(let seats)? = again["data"]?["room"]?["members"] else { throw DuelClientError.timeout(again.serialized) }
            #expect(seats.count == 2)
            #expect(await nextEvent(host, "room") { $0["record"]?["members"]?[1]?["id"] == .string(member.id) } != nil)
            // The host leaves on the first instance: the member on the second becomes host and hears it.
            _ = try await host.client.request("room_leave")
            #expect(await nextEvent(member, "room") { $0["record"]?["host"] == .string(member.id) } != nil)
            // The last one out: their other connection (on the first instance) hears the DELETE.
            let (other, _) = try await member.reconnect(first.url)
            _ = try await member.client.request("room_leave")
            let gone = await nextEvent(other, "room") { $0["type"] == "DELETE" }
            #expect(gone?["record"]?["state"] == "closed" && gone?["record"]?["code"] == .string(code))
        }

        @Test func busyPlayersCannotJoinARoom() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let host = try await TestPlayer.signUp(server.url)
            let created = try await host.client.request("room_create", ["bank": "world-capitals"])
            let code = created["data"]?["room"]?["code"] ?? .null
            let queued = try await TestPlayer.signUp(server.url)
            _ = try await queued.client.request("queue", ["bank": "general-science"])
            #expect(try await queued.client.request("room_join", ["code": code])["code"] == "already_queued")
            let (playing, _, _) = try await startDuel(server.url, bank: "chemical-elements")
            #expect(try await playing.client.request("room_join", ["code": code])["code"] == "in_duel")
            let elsewhere = try await TestPlayer.signUp(server.url)
            _ = try await elsewhere.client.request("room_create", ["bank": "world-capitals"])
            #expect(try await elsewhere.client.request("room_join", ["code": code])["code"] == "in_room")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM room_members")[0].int("n") == 2)
        }
    }
}
