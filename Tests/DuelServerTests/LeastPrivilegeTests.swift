import DuelClient
import DuelCore
import DuelServer
import DuelStore
import Foundation
import Logging
import Testing
import TestSupport

extension ServerTests {
    /// The server on a given database runs with the rights of `quizduel_server` and does not
    /// migrate; it refuses a schema that is not current.
    @Suite(.serialized) struct LeastPrivilegeTests {
        /// A login role that is a member of `group` (roles are shared by the whole test cluster).
        static func loginRole(in group: String, on conninfo: String) throws -> String {
            let name = "qd_\(group.split(separator: "_").last!)_\(UInt32.random(in: 0...UInt32.max))"
            let admin = try PGConnection(conninfo)
            defer { admin.close() }
            try admin.execute(script: "CREATE ROLE \(name) LOGIN IN ROLE \(group)")
            return conninfo + " user=\(name)"
        }

        @Test func serverPlaysAsTheLeastPrivilegedRole() async throws {
            let owner = try TestPostgres.migratedDatabase(seed: true)
            let serverRole = try Self.loginRole(in: "quizduel_server", on: owner)
            let server = try TestServer.start(auditAs: owner) { $0.database.url = serverRole }
            defer { server.stop() }
            // Sign-in, queue, matching, answering, finishing and reads all work with its grants.
            let (a, b, duel) = try await startDuel(server.url)
            let answer = try await a.client.request("answer", [
                "duel_id": .string(duel), "question_index": 0, "choice": 0,
            ])
            #expect(answer["code"] == nil || answer["code"] == "wrong_question", "\(answer.serialized)")
            #expect(try await b.client.request("forfeit", ["duel_id": .string(duel)])["ok"] == true)
            #expect(await a.client.nextEvent("complete") != nil)
            #expect(try await a.client.request("history", ["limit": 5])["ok"] == true)
            #expect(try await a.client.request("leaderboard", ["bank": "world-capitals"])["ok"] == true)
            // And it cannot change the schema.
            let db = try PGConnection(serverRole)
            defer { db.close() }
            #expect(throws: PGError.self) { try db.execute(script: "CREATE TABLE intruder (id int)") }
        }

        @Test func objectsOfLaterMigrationsAreGrantedByDefault() throws {
            let owner = try TestPostgres.migratedDatabase(seed: false)
            let admin = try PGConnection(owner)
            defer { admin.close() }
            // What a later migration would add, as the same owner.
            try admin.execute(script: """
                CREATE TABLE later_table (id int);
                CREATE FUNCTION ops.later_function() RETURNS int LANGUAGE sql AS 'SELECT 7';
                """)
            let server = try PGConnection(Self.loginRole(in: "quizduel_server", on: owner))
            defer { server.close() }
            try server.query("INSERT INTO later_table VALUES (1)")
            let operatorDB = try PGConnection(Self.loginRole(in: "quizduel_operator", on: owner))
            defer { operatorDB.close() }
            #expect(try operatorDB.query("SELECT ops.later_function() AS n")[0].int("n") == 7)
            #expect(throws: PGError.self) { try operatorDB.query("SELECT * FROM later_table") }
        }

        @Test func serverRefusesAStaleSchemaAndSaysWhatToRun() throws {
            let conninfo = try TestPostgres.emptyDatabase()
            let all = try Migrator(directory: SQLFiles.migrations).migrations
            let db = try PGConnection(conninfo)
            try Migrator(migrations: Array(all.dropLast())).apply(on: db)
            db.close()
            var config = TestServer.fastRules()
            config.database.url = conninfo
            config.network.port = TestServer.freePort()
            let server = DuelServer(configuration: config, logger: Logger(label: "stale"))
            do {
                try server.start()
                server.stop()
                Issue.record("the server started on a stale schema")
            } catch {
                server.stop()
                let message = "\(error)"
                #expect(message.contains(all.last!.name), "\(message)")
                #expect(message.contains("duel-server migrate"), "\(message)")
            }
            // Nothing was applied behind the operator's back.
            let check = try PGConnection(conninfo)
            defer { check.close() }
            #expect(try Migrator(directory: SQLFiles.migrations).status(on: check).missing == [all.last!.name])
        }

        @Test func migrateCommandAppliesEverythingAndSeeds() throws {
            let conninfo = try TestPostgres.emptyDatabase()
            let process = Process()
            process.executableURL = TestServer.productsDirectory.appendingPathComponent("duel-server")
            process.arguments = ["migrate", "--database-url", conninfo, "--log-level", "warning"]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let db = try PGConnection(conninfo)
            defer { db.close() }
            #expect(try Migrator(directory: SQLFiles.migrations).status(on: db).isCurrent)
            #expect(try db.query("SELECT count(*) AS n FROM banks")[0].int("n") >= 3)
        }

        @Test func serverWaitsForADatabaseThatIsNotUpYet() throws {
            // Nothing listens on this port: the start keeps retrying, then gives up with the reason.
            var config = TestServer.fastRules()
            config.database.url = "host=127.0.0.1 port=\(TestServer.freePort()) user=nobody dbname=none connect_timeout=1"
            config.network.port = TestServer.freePort()
            config.database.waitSeconds = 1.5
            let server = DuelServer(configuration: config, logger: Logger(label: "wait"))
            let started = Date()
            #expect(throws: PGError.self) { try server.start() }
            server.stop()
            #expect(Date().timeIntervalSince(started) >= 1.4)
        }
    }
}
