import DuelClient
import DuelCore
import Foundation
import Testing

extension ServerTests {
    /// Logout and expiry end the session on every socket using it, on any instance
    /// (issue 10 item 9).
    @Suite(.serialized) struct SessionEndTests {
        @Test func logoutClosesTheTokensOtherSocketsOnEveryInstance() async throws {
            let first = try TestServer.start()
            defer { first.stop() }
            let second = try first.another()
            defer { second.stop() }
            let player = try await TestPlayer.signUp(first.url)
            let (sameInstance, authA) = try await player.reconnect(first.url)
            let (otherInstance, authB) = try await player.reconnect(second.url)
            #expect(authA["ok"] == true && authB["ok"] == true)
            #expect(try await player.client.request("logout")["ok"] == true)
            #expect(await sameInstance.client.waitClosed(timeout: .seconds(5)) == 1008)
            #expect(await otherInstance.client.waitClosed(timeout: .seconds(5)) == 1008)
            // The socket that logged out stays open, signed out.
            #expect(!player.client.isClosed)
            #expect(try await player.client.request("queue", ["bank": "world-capitals"])["code"] == "unauthorized")
        }

        @Test func anExpiredSessionsSocketsAreClosed() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            let db = try server.database()
            defer { db.close() }
            try db.query("UPDATE sessions SET created_at = now() - interval '1 hour', expires_at = now() - interval '1 second' WHERE player_id = \(player.id)::uuid")
            #expect(await player.client.waitClosed(timeout: .seconds(5)) == 1008)
            let (_, auth) = try await player.reconnect(server.url)
            #expect(auth["code"] == "unauthorized")
        }
    }
}
