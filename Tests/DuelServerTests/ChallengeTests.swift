import DuelClient
import DuelCore
import DuelStore
import Foundation
import Testing

extension ServerTests {
    /// Challenges by name and rematches after a ranked duel (issue 12 items 3 and 4).
    @Suite(.serialized) struct ChallengeTests {
        @Test func anAcceptedChallengeStartsAnUnratedGameForBoth() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let made = try await a.client.request("challenge", ["username": .string(b.username.uppercased()), "bank": "world-capitals"])
            guard let id = made["data"]?["challenge_id"]?.string else { throw DuelClientError.timeout(made.serialized) }
            let notice = await b.client.nextEvent("challenge")
            #expect(notice?["type"] == "INSERT" && notice?["table"] == "challenges")
            #expect(notice?["record"]?["from"]?["username"] == .string(a.username) && notice?["record"]?["state"] == "pending")
            // Both see it in their lists.
            let listed = try await b.client.request("challenges")
            #expect(listed["data"]?["challenges"]?[0]?["id"] == .string(id))
            #expect(try await a.client.request("challenges")["data"]?["challenges"]?[0]?["id"] == .string(id))
            // Only the target accepts.
            #expect(try await a.client.request("challenge_accept", ["challenge_id": .string(id)])["code"] == "unknown_challenge")
            let accepted = try await b.client.request("challenge_accept", ["challenge_id": .string(id)])
            guard let duel = accepted["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(accepted.serialized) }
            for player in [a, b] {
                let start = await player.client.nextEvent("init")
                #expect(start?["duel_id"] == .string(duel))
                #expect(start?["record"]?["mode"] == "challenge" && start?["record"]?["rated"] == false)
            }
            #expect(accepted["data"]?["challenge"]?["state"] == "accepted")
            // No longer pending: a second accept is refused.
            #expect(try await b.client.request("challenge_accept", ["challenge_id": .string(id)])["code"] == "unknown_challenge")
            #expect(try await a.client.request("forfeit", ["duel_id": .string(duel)])["ok"] == true)
            let complete = await b.client.nextEvent("complete")
            #expect(complete?["record"]?["result"]?["winner"] == .string(b.id))
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM rating_history")[0].int("n") == 0)
        }

        @Test func challengeRefusalsAndDecline() async throws {
            let server = try TestServer.start { $0.social.challengesPerMinute = 2 }
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let c = try await TestPlayer.signUp(server.url)
            #expect(try await a.client.request("challenge", ["username": "nobody-here", "bank": "world-capitals"])["code"] == "unknown_player")
            #expect(try await a.client.request("challenge", ["username": .string(a.username), "bank": "world-capitals"])["code"] == "bad_request")
            #expect(try await a.client.request("challenge", ["username": .string(b.username), "bank": "nope"])["code"] == "unknown_bank")
            #expect(try await a.client.request("challenge", ["username": .string(b.username)])["code"] == "bad_request")
            // A NUL would end the name where libpq reads it: "b\0x" must not challenge b.
            #expect(try await a.client.request("challenge", ["username": .string(b.username + "\u{0}x"), "bank": "world-capitals"])["code"] == "bad_request")
            #expect(try await a.client.request("challenge_accept", ["challenge_id": "not-an-id"])["code"] == "unknown_challenge")
            #expect(try await a.client.request("challenge_decline", ["challenge_id": .string(UUID().uuidString.lowercased())])["code"] == "unknown_challenge")
            let first = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            // The same challenge again while it is pending is the same challenge.
            let again = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            #expect(again["data"]?["challenge_id"] == first["data"]?["challenge_id"])
            _ = try await a.client.request("challenge", ["username": .string(c.username), "bank": "world-capitals"])
            // Two new challenges a minute here: the third is refused.
            #expect(try await a.client.request("challenge", ["username": .string(c.username), "bank": "general-science"])["code"] == "rate_limited")
            // b declines: both hear it, and it can no longer be accepted.
            guard let id = first["data"]?["challenge_id"]?.string else { throw DuelClientError.timeout("id") }
            let declined = try await b.client.request("challenge_decline", ["challenge_id": .string(id)])
            #expect(declined["data"]?["challenge"]?["state"] == "declined")
            var seen: JSONValue?
            repeat { seen = await a.client.nextEvent("challenge", timeout: .seconds(5)) } while seen != nil && seen?["record"]?["state"] != "declined"
            #expect(seen?["record"]?["id"] == .string(id))
            #expect(try await b.client.request("challenge_accept", ["challenge_id": .string(id)])["code"] == "unknown_challenge")
            // A busy target: accepting while queued is refused and the challenge stays.
            guard let toC = try await c.client.request("challenges")["data"]?["challenges"]?[0]?["id"]?.string else {
                throw DuelClientError.timeout("c's challenge")
            }
            _ = try await c.client.request("queue", ["bank": "general-science"])
            #expect(try await c.client.request("challenge_accept", ["challenge_id": .string(toC)])["code"] == "already_queued")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM duels")[0].int("n") == 0)
            #expect(try db.query("SELECT state FROM challenges WHERE id = \(toC)::uuid")[0].string("state") == "pending")
        }

        @Test func anExpiredChallengeIsAnnouncedAndRefusesAccept() async throws {
            let server = try TestServer.start { $0.social.challengeTtlMs = 300; $0.jobs.socialIntervalMs = 100 }
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let made = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            guard let id = made["data"]?["challenge_id"]?.string else { throw DuelClientError.timeout(made.serialized) }
            for player in [a, b] {
                var event: JSONValue?
                repeat { event = await player.client.nextEvent("challenge", timeout: .seconds(5)) } while event != nil && event?["type"] != "UPDATE"
                #expect(event?["record"]?["state"] == "expired" && event?["record"]?["id"] == .string(id))
            }
            #expect(try await b.client.request("challenge_accept", ["challenge_id": .string(id)])["code"] == "challenge_expired")
            #expect(try await b.client.request("challenges")["data"]?["challenges"] == .array([]))
            // The challenger's bell keeps it: a stored `challenge_expired` notification (issue 14).
            let told = try await a.client.request("notifications")
            #expect(told["data"]?["notifications"]?[0]?["kind"] == "challenge_expired")
            #expect(told["data"]?["notifications"]?[0]?["data"]?["to"] == .string(b.username))
        }

        @Test func aChallengeMadeWhileTheTargetWasAwayArrivesAtSignIn() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            b.client.close()
            _ = await b.client.waitClosed()
            let made = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            let (back, reply) = try await b.reconnect(server.url)
            #expect(reply["ok"] == true)
            let notice = await back.client.nextEvent("challenge")
            #expect(notice?["type"] == "INSERT" && notice?["record"]?["id"] == made["data"]?["challenge_id"])
        }

        @Test func bothAskingForARematchStartsANewRankedDuel() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            #expect(try await a.client.request("rematch", ["duel_id": .string(duel)])["code"] == "bad_request")
            #expect(try await a.client.request("forfeit", ["duel_id": .string(duel)])["ok"] == true)
            _ = await a.client.nextEvent("complete")
            _ = await b.client.nextEvent("complete")
            let stranger = try await TestPlayer.signUp(server.url)
            #expect(try await stranger.client.request("rematch", ["duel_id": .string(duel)])["code"] == "not_in_duel")
            #expect(try await a.client.request("rematch", ["duel_id": .string(UUID().uuidString.lowercased())])["code"] == "unknown_duel")
            let offer = try await a.client.request("rematch", ["duel_id": .string(duel)])
            #expect(offer["data"]?["state"] == "offered")
            let seen = await b.client.nextEvent("rematch")
            #expect(seen?["record"]?["from"] == .string(a.id) && seen?["record"]?["state"] == "offered")
            let taken = try await b.client.request("rematch", ["duel_id": .string(duel)])
            guard let next = taken["data"]?["duel_id"]?.string else { throw DuelClientError.timeout(taken.serialized) }
            for player in [a, b] {
                let start = await player.client.nextEvent("init")
                #expect(start?["duel_id"] == .string(next) && start?["record"]?["mode"] == "ranked")
            }
            // Once per duel.
            #expect(try await a.client.request("rematch", ["duel_id": .string(duel)])["code"] == "bad_request")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT rematch_of::text AS d FROM duels WHERE id = \(next)::uuid")[0].string("d") == duel)
        }

        @Test func aChallengerWhoLeftIsAbandonedInTheAcceptedGame() async throws {
            let server = try TestServer.start { $0.duel.abandonAfterMs = 1_000 }
            defer { server.stop() }
            let a = try await TestPlayer.signUp(server.url)
            let b = try await TestPlayer.signUp(server.url)
            let made = try await a.client.request("challenge", ["username": .string(b.username), "bank": "world-capitals"])
            guard let id = made["data"]?["challenge_id"]?.string else { throw DuelClientError.timeout(made.serialized) }
            a.client.close()
            _ = await a.client.waitClosed()
            // Give the server a moment to see the close.
            try await Task.sleep(for: .milliseconds(300))
            let accepted = try await b.client.request("challenge_accept", ["challenge_id": .string(id)])
            #expect(accepted["ok"] == true)
            // The absent challenger's clock started with the game: b wins by abandonment.
            let complete = await b.client.nextEvent("complete", timeout: .seconds(15))
            #expect(complete?["record"]?["result"]?["reason"] == "abandoned")
            #expect(complete?["record"]?["result"]?["winner"] == .string(b.id))
        }

        @Test func aRematchOfferExpiresWithAnEvent() async throws {
            // A window of 2 s, not less: the offer must reach the database within it of the
            // game's end, after the held `complete`, its commit and a round trip.
            let server = try TestServer.start { $0.social.rematchWindowMs = 2_000; $0.jobs.socialIntervalMs = 100 }
            defer { server.stop() }
            let (a, b, duel) = try await startDuel(server.url)
            _ = try await a.client.request("forfeit", ["duel_id": .string(duel)])
            _ = await b.client.nextEvent("complete")
            let offer = try await a.client.request("rematch", ["duel_id": .string(duel)])
            #expect(offer["data"]?["state"] == "offered", "\(offer.serialized)")
            var event: JSONValue?
            repeat { event = await b.client.nextEvent("rematch", timeout: .seconds(5)) } while event != nil && event?["record"]?["state"] != "expired"
            #expect(event?["type"] == "UPDATE")
            // Too late: both must ask within the window after the end.
            #expect(try await b.client.request("rematch", ["duel_id": .string(duel)])["code"] == "bad_request")
            let db = try server.database()
            defer { db.close() }
            #expect(try db.query("SELECT count(*) AS n FROM duels")[0].int("n") == 1)
        }
    }
}
