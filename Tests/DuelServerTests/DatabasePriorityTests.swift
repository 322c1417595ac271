import DuelClient
import DuelCore
import Foundation
import Testing

extension ServerTests {
    /// The server's own database work does not wait behind players' requests, and anonymous
    /// reads are cached (issue 10 item 8).
    @Suite(.serialized) struct DatabasePriorityTests {
        @Test func healthStaysFreshWhileEveryRequestWorkerIsStuck() async throws {
            let server = try TestServer.start { $0.database.connections = 3 }
            defer { server.stop() }
            let blocker = try server.database()
            defer { blocker.close() }
            // Three logins that wait on locks held here: more than the workers that take requests.
            var clients: [DuelClient] = []
            for index in 0..<3 {
                try blocker.query("SELECT pg_advisory_lock(hashtext('u:' || lower(\("stuck-\(index)"))))")
                let client = try DuelClient(url: server.url)
                try await client.connect()
                client.sendRaw(#"{"op":"login","ref":1,"username":"stuck-\#(index)","password":"whatever1"}"#)
                clients.append(client)
            }
            // /healthz turns 503 when the health job has not reached the database for 5 s.
            try await Task.sleep(for: .seconds(6))
            let health = httpGet(port: server.port, "/healthz")
            #expect(health.status == 200, "\(health.body)")
            try blocker.query("SELECT pg_advisory_unlock_all()")
            for client in clients { #expect(await client.next(timeout: .seconds(5))?["code"] == "bad_credentials") }
        }

        @Test func aFloodOfBanksRequestsIsServedFromACopy() async throws {
            // The periodic jobs held back: the test's matcher and sweep would add about 30 jobs a
            // second, so a machine slow enough to serve the 300 requests in a second failed it.
            let server = try TestServer.start {
                $0.jobs.matchIntervalMs = 60_000
                $0.jobs.sweepIntervalMs = 60_000
                $0.jobs.socialIntervalMs = 60_000
            }
            defer { server.stop() }
            func databaseJobs() -> Int {
                let line = httpGet(port: server.port, "/metrics").body.split(separator: "\n")
                    .first { $0.hasPrefix("quizduel_database_seconds_count") }
                return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? -1
            }
            let before = databaseJobs()
            var clients: [DuelClient] = []
            for _ in 0..<10 {
                let client = try DuelClient(url: server.url)
                try await client.connect()
                for ref in 0..<30 { client.sendRaw(#"{"op":"banks","ref":\#(ref)}"#) }
                clients.append(client)
            }
            for client in clients {
                for _ in 0..<30 {
                    let reply = await client.next(timeout: .seconds(10))
                    #expect(reply?["ok"] == true, "\(reply?.serialized ?? "no reply")")
                }
            }
            let after = databaseJobs()
            // 300 requests; the health job adds about one job a second.
            #expect(after - before < 30, "\(after - before) database jobs for 300 banks requests")
        }
    }
}
