import DuelClient
import DuelCore
import Foundation
import Testing

@testable import DuelServer

extension ServerTests {
    /// The login throttle, the password-hashing queue and the connection caps (issue 10,
    /// items 4, 5 and 10), against a real server over real sockets.
    @Suite(.serialized) struct ThrottleTests {
        /// Sends `count` messages at once and returns the `code` (or "ok") of each reply, by ref.
        func pipeline(_ client: DuelClient, _ count: Int, _ message: (Int) -> String) async -> [String] {
            for index in 0..<count { client.sendRaw(message(index)) }
            var codes = [String](repeating: "none", count: count)
            for _ in 0..<count {
                guard let reply = await client.next(timeout: .seconds(20)) else { break }
                guard let ref = reply["ref"]?.integer.map({ Int($0) }), ref >= 0, ref < count else { continue }
                let ok = reply["ok"] == true
                codes[ref] = ok ? "ok" : (reply["code"]?.string ?? "?")
            }
            return codes
        }

        @Test func pipelinedWrongPasswordsCountAsTheyArrive() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let victim = try await TestPlayer.signUp(server.url)
            let attacker = try DuelClient(url: server.url)
            try await attacker.connect()
            let codes = await pipeline(attacker, 30) { ref in
                #"{"op":"login","ref":\#(ref),"username":"\#(victim.username)","password":"guess number \#(ref)"}"#
            }
            // Five attempts are allowed per username; the other 25 were refused on arrival.
            #expect(codes.filter { $0 == "bad_credentials" }.count == 5, "\(codes)")
            #expect(codes.filter { $0 == "rate_limited" }.count == 25, "\(codes)")
        }

        @Test func theThrottleIsSharedByInstances() async throws {
            let first = try TestServer.start()
            defer { first.stop() }
            let second = try first.another()
            defer { second.stop() }
            let victim = try await TestPlayer.signUp(first.url)
            for server in [first, second] {
                let client = try DuelClient(url: server.url)
                try await client.connect()
                for guess in 0..<3 {
                    let reply = try await client.request("login", [
                        "username": .string(victim.username), "password": .string("guess \(guess)")])
                    // 3 on the first instance, then 2 more on the second: the sixth is refused.
                    let expected = server === second && guess == 2 ? "rate_limited" : "bad_credentials"
                    #expect(reply["code"]?.string == expected, "\(reply.serialized)")
                }
            }
            // The right password is refused too while the throttle holds.
            let late = try await victim.client.request("login", [
                "username": .string(victim.username), "password": "correct horse battery"])
            #expect(late["code"] == "rate_limited")
        }

        @Test func aSuccessfulLoginClearsTheUsernamesFailures() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            let player = try await TestPlayer.signUp(server.url)
            for _ in 0..<4 {
                #expect(try await player.client.request("login", [
                    "username": .string(player.username), "password": "wrong password"])["code"] == "bad_credentials")
            }
            #expect(try await player.client.request("login", [
                "username": .string(player.username.uppercased()), "password": "correct horse battery"])["ok"] == true)
            for _ in 0..<4 {
                #expect(try await player.client.request("login", [
                    "username": .string(player.username), "password": "wrong password"])["code"] == "bad_credentials")
            }
        }

        @Test func theHashingQueueIsBoundedPerAddress() async throws {
            let server = try TestServer.start { $0.signIn.hashQueuePerAddress = 4; $0.signIn.hashQueueTotal = 16 }
            defer { server.stop() }
            let flooder = try DuelClient(url: server.url)
            try await flooder.connect()
            let started = Date()
            let prefix = "f\(UInt16.random(in: 0...UInt16.max))"
            let codes = await pipeline(flooder, 30) { ref in
                #"{"op":"signup","ref":\#(ref),"username":"\#(prefix)-\#(ref)","password":"long enough password"}"#
            }
            // At most 4 hashes wait or run for this address: the rest are answered at once.
            #expect(codes.filter { $0 == "rate_limited" }.count >= 20, "\(codes)")
            #expect(codes.filter { $0 == "ok" }.count >= 4, "\(codes)")
            #expect(!codes.contains("none"))
            #expect(Date().timeIntervalSince(started) < 10)
        }

        @Test func aClosedConnectionsHashesAreDropped() async throws {
            let server = try TestServer.start { $0.signIn.hashQueuePerAddress = 8 }
            defer { server.stop() }
            let prefix = "d\(UInt16.random(in: 0...UInt16.max))"
            let flooder = try DuelClient(url: server.url)
            try await flooder.connect()
            for ref in 0..<8 {
                flooder.sendRaw(#"{"op":"signup","ref":\#(ref),"username":"\#(prefix)-\#(ref)","password":"long enough password"}"#)
            }
            try await Task.sleep(for: .milliseconds(30))
            flooder.close()
            try await Task.sleep(for: .seconds(3))
            let db = try server.database()
            defer { db.close() }
            let created = try db.query("SELECT count(*) AS n FROM players WHERE username LIKE \(prefix + "-%")")[0].int("n")
            // Only the hashes already running (two threads) can finish; the waiting ones went.
            #expect(created <= 3, "\(created) of 8 signups ran after their connection closed")
        }

        @Test func aTrustedProxyNamesTheClient() throws {
            let server = try TestServer.start { $0.network.trustedProxies = ["127.0.0.1"]; $0.limits.maxConnectionsPerAddress = 2 }
            defer { server.stop() }
            let via = { (client: String) in ["X-Forwarded-For: 198.51.100.7, \(client)"] }
            let first = upgradedSocket(port: server.port, headers: via("203.0.113.1"))
            let second = upgradedSocket(port: server.port, headers: via("203.0.113.1"))
            let third = upgradedSocket(port: server.port, headers: via("203.0.113.1"))
            let other = upgradedSocket(port: server.port, headers: ["Forwarded: for=\"[2001:db8::5]:4711\""])
            defer { [first, second, third, other].compactMap { $0 }.forEach { close($0) } }
            #expect(first != nil && second != nil)
            #expect(third == nil, "a third connection from one client address")
            #expect(other != nil, "another client behind the same proxy")
        }

        @Test func headersFromAnUntrustedPeerAreIgnored() throws {
            let server = try TestServer.start { $0.limits.maxConnectionsPerAddress = 2 }
            defer { server.stop() }
            let sockets = (1...3).map { upgradedSocket(port: server.port, headers: ["X-Forwarded-For: 203.0.113.\($0)"]) }
            defer { sockets.compactMap { $0 }.forEach { close($0) } }
            #expect(sockets.map { $0 != nil } == [true, true, false])
        }

        @Test func theServerWideCapRefusesTheNextConnection() throws {
            let server = try TestServer.start { $0.limits.maxConnections = 3 }
            defer { server.stop() }
            let sockets = (0..<4).map { _ in upgradedSocket(port: server.port) }
            defer { sockets.compactMap { $0 }.forEach { close($0) } }
            #expect(sockets.map { $0 != nil } == [true, true, true, false])
            #expect(httpGet(port: server.port, "/metrics").body.contains("quizduel_connections_refused_total 1"))
        }
    }
}

struct ClientAddressTests {
    let trusted: Set<String> = ["10.0.0.1", "10.0.0.2"]

    @Test func resolves() {
        func resolve(_ peer: String, forwarded: String? = nil, xff: String? = nil) -> String {
            ClientAddress.resolve(peer: peer, forwarded: forwarded, forwardedFor: xff, trusted: trusted)
        }
        #expect(resolve("192.0.2.9", xff: "203.0.113.1") == "192.0.2.9")  // untrusted peer
        #expect(resolve("10.0.0.1") == "10.0.0.1")  // trusted, no header
        #expect(resolve("10.0.0.1", xff: "203.0.113.1") == "203.0.113.1")
        #expect(resolve("10.0.0.1", xff: "1.2.3.4, 203.0.113.1") == "203.0.113.1")  // client-written hop ignored
        #expect(resolve("10.0.0.1", xff: "203.0.113.1, 10.0.0.2") == "203.0.113.1")  // two proxies
        #expect(resolve("10.0.0.1", xff: "203.0.113.1, garbage") == "10.0.0.1")
        #expect(resolve("10.0.0.1", forwarded: "for=192.0.2.60;proto=http, for=\"[2001:db8:cafe::17]:4711\"") == "2001:db8:cafe::17")
        #expect(resolve("10.0.0.1", forwarded: "For=\"192.0.2.43:47011\"", xff: "1.1.1.1") == "192.0.2.43")
        #expect(resolve("10.0.0.1", forwarded: "for=unknown") == "10.0.0.1")
    }
}

struct FairQueueTests {
    @Test func servesAddressesInTurnWithinBounds() {
        var queue = FairQueue<Int>(total: 5, perKey: 3)
        do { let accepted = queue.enqueue(key: "a", owner: 1, 1); #expect(accepted) }
        do { let accepted = queue.enqueue(key: "a", owner: 1, 2); #expect(accepted) }
        do { let accepted = queue.enqueue(key: "a", owner: 1, 3); #expect(accepted) }
        do { let accepted = queue.enqueue(key: "a", owner: 1, 4); #expect(!accepted) }  // per-address bound
        do { let accepted = queue.enqueue(key: "b", owner: 2, 10); #expect(accepted) }
        do { let accepted = queue.enqueue(key: "c", owner: 3, 20); #expect(accepted) }
        do { let accepted = queue.enqueue(key: "d", owner: 4, 30); #expect(!accepted) }  // total bound
        var order: [Int] = []
        while let (key, job) = queue.dequeue() {
            order.append(job)
            queue.finished(key: key)
        }
        #expect(order == [1, 10, 20, 2, 3])
        do { let accepted = queue.enqueue(key: "a", owner: 1, 5); #expect(accepted) }
    }

    @Test func runningJobsCountAgainstTheirAddress() {
        var queue = FairQueue<Int>(total: 10, perKey: 1)
        do { let accepted = queue.enqueue(key: "a", owner: 1, 1); #expect(accepted) }
        let taken = queue.dequeue()
        #expect(taken?.job == 1)
        do { let accepted = queue.enqueue(key: "a", owner: 1, 2); #expect(!accepted) }  // still running
        queue.finished(key: "a")
        do { let accepted = queue.enqueue(key: "a", owner: 1, 2); #expect(accepted) }
    }

    @Test func aClosedOwnersJobsGo() {
        var queue = FairQueue<Int>(total: 10, perKey: 5)
        _ = queue.enqueue(key: "a", owner: 1, 1)
        _ = queue.enqueue(key: "a", owner: 2, 2)
        _ = queue.enqueue(key: "b", owner: 1, 3)
        let removed = queue.removeAll(owner: 1)
        #expect(removed == 2)
        #expect(queue.queuedCount == 1)
        let next = queue.dequeue()
        #expect(next?.job == 2)
        let none = queue.dequeue()
        #expect(none == nil)
    }
}
