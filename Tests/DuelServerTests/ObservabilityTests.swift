import DuelCore
import DuelServer
import Foundation
import DuelStore
import Logging
import Testing

extension ServerTests {
    /// `--log-format json`, `/livez`, `/readyz` and the process figures of `/metrics`.
    @Suite(.serialized) struct ObservabilityTests {
        @Test func jsonLogLinesCarryTheIdsAsKeys() throws {
            let line = JSONLogHandler.line(
                level: .warning, label: "quizduel", message: "deadline failed; \"retrying\"",
                metadata: [LogKey.duel: "d-1", LogKey.player: "p-1", LogKey.connection: "42", "error": "boom\nline two"],
                atMs: 1_763_764_800_123)
            #expect(line.hasSuffix("\n"))
            #expect(line.dropLast().contains("\n") == false)
            let object = try JSONParser.parse(Array(line.utf8))
            #expect(object["ts"] == "2025-11-21T22:40:00.123Z")
            #expect(object["level"] == "warning")
            #expect(object["msg"] == "deadline failed; \"retrying\"")
            #expect(object["duel.id"] == "d-1")
            #expect(object["player.id"] == "p-1")
            #expect(object["conn.id"] == "42")
            #expect(object["error"] == "boom\nline two")
        }

        @Test func livezReadyzAndProcessMetrics() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            #expect(httpGet(port: server.port, "/livez").status == 200)
            var ready = httpGet(port: server.port, "/readyz")
            for _ in 0..<40 where ready.status != 200 {
                try await Task.sleep(for: .milliseconds(100))
                ready = httpGet(port: server.port, "/readyz")
            }
            #expect(ready.status == 200, "\(ready.body)")
            let metrics = httpGet(port: server.port, "/metrics").body
            for name in ["process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds",
                         "process_max_fds", "process_start_time_seconds"] {
                let value = metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                    .flatMap { Double($0.split(separator: " ")[1]) }
                #expect((value ?? 0) > 0, "\(name)")
            }
            #expect(metrics.contains("quizduel_build_info{version=\"\(BuildInfo.version)\""))
            #expect(metrics.contains("quizduel_live_duels{scope=\"cluster\"}"))
            // The lanes' busy time, in seconds: a number, whether or not a round ran yet.
            let busy = metrics.split(separator: "\n").first { $0.hasPrefix("quizduel_lane_busy_seconds_total ") }
                .flatMap { Double($0.split(separator: " ")[1]) }
            #expect((busy ?? -1) >= 0)
            #expect(metrics.contains("# TYPE quizduel_lane_busy_seconds_total counter"))
        }

        @Test func readyzFailsWhenTheDatabaseIsGoneButLivezStaysUp() async throws {
            let server = try TestServer.start()
            defer { server.stop() }
            for _ in 0..<40 where httpGet(port: server.port, "/readyz").status != 200 {
                try await Task.sleep(for: .milliseconds(100))
            }
            // Drop the server's database: its health checks fail from then on.
            let admin = try server.database()
            let name = try admin.query("SELECT current_database() AS name")[0].string("name")
            admin.close()
            let base = server.conninfo.replacingOccurrences(of: "dbname=\(name)", with: "dbname=postgres")
            let root = try PGConnection(base)
            defer { root.close() }
            try root.execute(script: "DROP DATABASE \(name) WITH (FORCE)")
            var status = 200
            for _ in 0..<100 where status == 200 {
                try await Task.sleep(for: .milliseconds(100))
                status = Int(httpGet(port: server.port, "/readyz").status)
            }
            #expect(status == 503)
            #expect(httpGet(port: server.port, "/livez").status == 200)
        }
    }
}
