import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

/// Players in a room, its code and the reply data of `room_create`.
struct TestRoom {
    let host: TestPlayer
    let members: [TestPlayer]
    let code: String
    var everyone: [TestPlayer] { [host] + members }
}

/// A room on `bank` with `count` members (host first), every member at the room's latest event.
func makeRoom(
    _ urls: [String], count: Int, bank: String = "world-capitals", settings: JSONObject = [:]
) async throws -> TestRoom {
    let host = try await TestPlayer.signUp(urls[0])
    var fields = settings
    fields["bank"] = .string(bank)
    let created = try await host.client.request("room_create", fields)
    guard let code = created["data"]?["room"]?["code"]?.string else { throw DuelClientError.timeout(created.serialized) }
    var members: [TestPlayer] = []
    for index in 1..<count {
        let member = try await TestPlayer.signUp(urls[index % urls.count])
        let joined = try await member.client.request("room_join", ["code": .string(code)])
        guard joined["ok"] == true else { throw DuelClientError.timeout(joined.serialized) }
        members.append(member)
    }
    return TestRoom(host: host, members: members, code: code)
}

/// Plays a started game to its end: on each question the others answer wrong, then
/// `winner` answers right (so every reveal comes at once). Returns each player's `complete`.
func playRoomGame(_ server: TestServer, _ players: [TestPlayer], duel: String, winner: Int = 0) async throws -> [JSONValue] {
    let lead = players[winner]
    let others = players.enumerated().filter { $0.offset != winner }.map(\.element)
    while true {
        guard let event = await lead.client.next(timeout: .seconds(15)) else { throw DuelClientError.timeout("event") }
        if event["event"] == "complete", event["duel_id"] == .string(duel) { break }
        guard event["event"] == "question", event["duel_id"] == .string(duel),
              let index = event["record"]?["question"]?["index"]?.integer,
              case .array(let options)? = event["record"]?["question"]?["choices"] else { continue }
        let correct = try correctChoice(server, duel: duel, index: Int(index))
        for other in others {
            let reply = try await other.client.request("answer", [
                "duel_id": .string(duel), "question_index": .int(index), "choice": .number((correct + 1) % options.count),
            ])
            #expect(reply["ok"] == true, "\(reply.serialized)")
        }
        let reply = try await lead.client.request("answer", [
            "duel_id": .string(duel), "question_index": .int(index), "choice": .number(correct),
        ])
        #expect(reply["ok"] == true && reply["data"]?["correct"] == true, "\(reply.serialized)")
    }
    var completes: [JSONValue] = []
    for player in players {
        // The lead's was consumed above; its record is the same for every player.
        let complete = player.id == lead.id ? nil : await player.client.nextEvent("complete", timeout: .seconds(15))
        completes.append(complete ?? .null)
    }
    return completes
}

extension ServerTests {
    /// Rooms (issue 12 item 2): every op and every refusal, games of three, rematch, and
    /// members on two instances.
    @Suite(.serialized) struct RoomTests {
        @Test func roomOpsReplyTheRoomAndMembersHearEveryChange() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let host = try await TestPlayer.signUp(server.url)
            let created = try await host.client.request("room_create", ["bank": "world-capitals", "max_players": 3])
            let room = created["data"]?["room"]
            #expect(room?["host"] == .string(host.id) && room?["state"] == "open" && room?["max_players"] == 3)
            #expect(room?["questions"] == 10 && room?["answer_ms"] == 1_500 && room?["games"] == 0)
            guard let code = room?["code"]?.string else { throw DuelClientError.timeout(created.serialized) }
            #expect(code.count == 6 && code.allSatisfy { RoomCode.alphabet.contains($0) })
            #expect(await host.client.nextEvent("room")?["type"] == "INSERT")

            let b = try await TestPlayer.signUp(server.url)
            // Codes are typed by people: case and spaces do not matter.
            let joined = try await b.client.request("room_join", ["code": .string(" " + code.lowercased())])
            #expect(joined["data"]?["room"]?["members"]?[1]?["id"] == .string(b.id))
            let update = await host.client.nextEvent("room")
            #expect(update?["type"] == "UPDATE" && update?["table"] == "rooms")
            guard case .array(let members)? = update?["record"]?["members"] else { throw DuelClientError.timeout("members") }
            #expect(members.count == 2)

            // The host leaves: b becomes host and hears it; the last one out closes the room.
            let left = try await host.client.request("room_leave")
            #expect(left["data"]?["room"]?["host"] == .string(b.id))
            var handedOver: JSONValue?
            repeat { handedOver = await b.client.nextEvent("room", timeout: .seconds(5)) }
            while handedOver != nil && handedOver?["record"]?["host"] != .string(b.id)
            #expect(handedOver != nil)
            let closed = try await b.client.request("room_leave")
            #expect(closed["data"]?["room"]?["state"] == "closed")
            #expect(try await b.client.request("room_join", ["code": .string(code)])["code"] == "unknown_room")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM rooms")[0].int("n") == 0)
        }

        @Test func roomRefusalsChangeNothing() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 2, settings: ["max_players": 2])
            let (host, b) = (room.host, room.members[0])
            let c = try await TestPlayer.signUp(server.url)
            // Settings and fields.
            #expect(try await c.client.request("room_create", ["bank": "world-capitals", "questions": 21])["code"] == "bad_request")
            #expect(try await c.client.request("room_create", ["bank": "world-capitals", "answer_ms": 4_999])["code"] == "bad_request")
            #expect(try await c.client.request("room_create", ["bank": "world-capitals", "max_players": 5])["code"] == "bad_request")
            #expect(try await c.client.request("room_create", ["bank": "nope"])["code"] == "unknown_bank")
            #expect(try await c.client.request("room_join", [:])["code"] == "bad_request")
            #expect(try await c.client.request("room_join", ["code": "ZZZZZZ"])["code"] == "unknown_room")
            #expect(try await c.client.request("room_join", ["code": .string(room.code)])["code"] == "room_full")
            #expect(try await c.client.request("room_leave")["code"] == "unknown_room")
            #expect(try await c.client.request("room_start")["code"] == "unknown_room")
            // A member plays only the room's games.
            #expect(try await b.client.request("room_start")["code"] == "not_host")
            #expect(try await b.client.request("queue", ["bank": "world-capitals"])["code"] == "in_room")
            #expect(try await b.client.request("practice", ["bank": "world-capitals"])["code"] == "in_room")
            #expect(try await b.client.request("room_create", ["bank": "world-capitals"])["code"] == "in_room")
            // A queued player cannot join or create.
            _ = try await c.client.request("queue", ["bank": "world-capitals"])
            #expect(try await c.client.request("room_create", ["bank": "world-capitals"])["code"] == "already_queued")
            _ = try await c.client.request("cancel")
            // A room of one cannot start.
            let alone = try await TestPlayer.signUp(server.url)
            _ = try await alone.client.request("room_create", ["bank": "world-capitals"])
            #expect(try await alone.client.request("room_start")["code"] == "room_too_small")
            // Busy while its game runs: no start, no join (a leave forfeits, tested below).
            let started = try await host.client.request("room_start")
            #expect(started["data"]?["duel_id"]?.string != nil)
            #expect(try await host.client.request("room_start")["code"] == "room_busy")
            let d = try await TestPlayer.signUp(server.url)
            #expect(try await d.client.request("room_join", ["code": .string(room.code)])["code"] == "room_busy")
            // A player in a live game cannot join or create a room.
            let (e, _, _) = try await startDuel(server.url, bank: "general-science")
            #expect(try await e.client.request("room_create", ["bank": "world-capitals"])["code"] == "in_duel")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM rooms")[0].int("n") == 2)
            #expect(try db.query("SELECT count(*) AS n FROM duels WHERE mode = 'room'")[0].int("n") == 1)
        }

        @Test func threeMembersPlayAGameAndTheRematchAvoidsPlayedQuestions() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 3, bank: "chemical-elements", settings: ["questions": 20])
            let players = room.everyone
            let started = try await room.host.client.request("room_start")
            guard let duel = started["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(started.serialized) }
            #expect(started["data"]?["room"]?["state"] == "playing")
            for player in players {
                let start = await player.client.nextEvent("init")
                #expect(start?["duel_id"] == .string(duel))
                #expect(start?["record"]?["mode"] == "room" && start?["record"]?["rated"] == false)
                guard case .array(let seated)? = start?["record"]?["players"] else { throw DuelClientError.timeout("players") }
                #expect(seated.count == 3)
            }
            let completes = try await playRoomGame(server, players, duel: duel, winner: 1)
            let result = completes[0]["record"]?["result"]
            #expect(result?["placements"]?[players[1].id] == 1)
            #expect(result?["placements"]?[players[0].id] == 2 && result?["placements"]?[players[2].id] == 2)
            #expect(result?["winner"] == .null)
            // The game's end opens the room again, and every member hears it (the event may
            // come before or after `complete`, which the loop above waited for: the transcript has it).
            for player in players {
                var reopened = false
                for _ in 0..<50 where !reopened {
                    reopened = player.client.transcript.contains { text in
                        guard let event = try? JSONParser.parse(text), event["event"] == "room" else { return false }
                        return event["record"]?["state"] == "open" && event["record"]?["duel_id"] == .string(duel)
                    }
                    if !reopened { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(reopened)
            }
            // The rematch: the same members, none of the 20 questions again (the bank has more than 40).
            let again = try await room.host.client.request("room_start")
            guard let second = again["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(again.serialized) }
            #expect(again["data"]?["room"]?["games"] == 2)
            let db = try server.database()
            defer { db.close() }
            let repeated = try db.query("""
                SELECT count(*) AS n FROM duel_questions a JOIN duel_questions b ON a.question_id = b.question_id
                 WHERE a.duel_id = \(duel)::uuid AND b.duel_id = \(second)::uuid
                """)[0].int("n")
            #expect(repeated == 0)
            #expect(try db.query("SELECT count(*) AS n FROM duel_questions WHERE duel_id = \(second)::uuid")[0].int("n") == 20)
            #expect(try db.query("SELECT count(*) AS n FROM rating_history")[0].int("n") == 0)
            // Every member's history has the game; its third seat finds it through more_players.
            let history = try await players[2].client.request("history", ["limit": 5])
            #expect(history["data"]?["duels"]?[0]?["id"] == .string(duel))
        }

        @Test func aRoomWhoseMembersSitOnTwoInstancesPlaysAWholeGame() async throws {
            let first = try TestServer.start()
            let second = try first.another()
            defer { first.stop(); second.stop() }
            let room = try await makeRoom([first.url, second.url], count: 4)
            let players = room.everyone
            let started = try await room.host.client.request("room_start")
            guard let duel = started["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(started.serialized) }
            for player in players { #expect(await player.client.nextEvent("init")?["duel_id"] == .string(duel)) }
            let completes = try await playRoomGame(first, players, duel: duel, winner: 3)
            for complete in completes.dropLast() {
                #expect(complete["record"]?["result"]?["placements"]?[players[3].id] == 1)
            }
        }

        @Test func leavingDuringAGameForfeitsItAndTheOthersPlayOn() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 3)
            let started = try await room.host.client.request("room_start")
            guard let duel = started["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(started.serialized) }
            let leaver = room.members[1]
            #expect(try await leaver.client.request("room_leave")["ok"] == true)
            // Out of the game as soon as the reply comes: free for another while the others play on.
            #expect(try await leaver.client.request("practice", ["bank": "world-capitals"])["ok"] == true)
            let stayers = [room.host, room.members[0]]
            let completes = try await playRoomGame(server, stayers, duel: duel)
            let placements = completes[1]["record"]?["result"]?["placements"]
            #expect(placements?[room.host.id] == 1 && placements?[leaver.id] == 3)
            // The room is open again with two members: the rematch starts.
            #expect(try await room.host.client.request("room_start")["ok"] == true)
        }

        @Test func aMemberGoneLongerThanTheAbandonmentDelayLeavesTheRoom() async throws {
            // 3 s: the reconnect below must come back within it, after the host has seen the
            // seat go offline (600 ms was too short for a loaded machine).
            let server = try TestServer.start { $0.duel.abandonAfterMs = 3_000; $0.jobs.socialIntervalMs = 100 }
            defer { server.stop() }
            let room = try await makeRoom([server.url], count: 3)
            // Back in time: a reconnect keeps the seat.
            room.members[0].client.close()
            _ = await room.members[0].client.waitClosed()
            // The others see the seat go offline, then come back.
            func seat(_ event: JSONValue?) -> JSONValue? {
                guard case .array(let seats)? = event?["record"]?["members"] else { return nil }
                return seats.first { $0["id"] == .string(room.members[0].id) }
            }
            var seen: JSONValue?
            repeat { seen = await room.host.client.nextEvent("room", timeout: .seconds(5)) }
            while seen != nil && seat(seen)?["connected"] != false
            #expect(seen != nil)
            let (back, _) = try await room.members[0].reconnect(server.url)
            #expect(await back.client.nextEvent("room")?["record"]?["code"] == .string(room.code))
            repeat { seen = await room.host.client.nextEvent("room", timeout: .seconds(5)) }
            while seen != nil && seat(seen)?["connected"] != true
            #expect(seen != nil)
            // The host goes for good: the role passes on and the room shows who is left.
            room.host.client.close()
            var update: JSONValue?
            for _ in 0..<5 {
                update = await room.members[1].client.nextEvent("room", timeout: .seconds(10))
                if case .array(let members)? = update?["record"]?["members"], members.count == 2 { break }
            }
            #expect(update?["record"]?["host"] == .string(room.members[0].id))
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM room_members")[0].int("n") == 2)
        }
    }
}
