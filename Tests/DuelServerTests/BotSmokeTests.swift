import DuelBots
import DuelCore
import DuelServer
import Foundation
import Testing

extension ServerTests {
    /// The load-test bots against a test server: real duels, no errors, no rule violations,
    /// and report figures a load tester can trust (issue 23, item 10).
    @Suite(.serialized) struct BotSmokeTests {
        /// Duels of three questions with no countdown or reveal pause; the hashing queue takes
        /// every bot's sign-up at once (from one address, the default 8 would refuse some, and a
        /// refused sign-up is now an error in the report).
        static func fastServer(_ tweak: (inout ServerConfiguration) -> Void = { _ in }) throws -> TestServer {
            try TestServer.start {
                $0.duel = DuelConfiguration(countdownMs: 0, answerWindowMs: 1_000, revealMs: 0, abandonAfterMs: 10_000, questionCount: 3)
                $0.limits.messagesPerSecond = 200
                $0.limits.messageBurst = 400
                $0.signIn.hashQueuePerAddress = 64
                tweak(&$0)
            }
        }

        static func fleet(_ server: TestServer, bots: Int) -> BotConfiguration {
            var config = BotConfiguration()
            config.url = server.url
            config.bots = bots
            config.durationSeconds = 60
            config.thinkMs = 0...50
            return config
        }

        @Test func twentyBotsPlayTenDuelsCleanly() async throws {
            let server = try Self.fastServer()
            defer { server.stop() }
            var config = Self.fleet(server, bots: 20)
            config.duels = 10
            let report = await BotRunner(configuration: config).run()
            #expect((report["duels"]?.integer ?? 0) >= 10, "\(report.serialized)")
            #expect(report["errors"] == .object([:]), "\(report.serialized)")
            #expect(report["violations"] == .object([:]), "\(report.serialized)")
            #expect((report["answers"]?.integer ?? 0) > 0)
            #expect((report["time_to_match"]?["count"]?.integer ?? 0) >= 20)
        }

        /// `--duels 10` with 20 bots once played 19 duels and ran 56 s. Think times spread the
        /// duels' ends, so bots done early would queue again and start duels past the target.
        @Test func stopsAtExactlyTheDuelCountAndPromptly() async throws {
            let server = try Self.fastServer()
            defer { server.stop() }
            var config = Self.fleet(server, bots: 20)
            config.duels = 10
            config.thinkMs = 50...600
            let started = ContinuousClock.now
            let report = await BotRunner(configuration: config).run()
            let elapsed = ContinuousClock.now - started
            #expect(report["duels"]?.integer == 10, "\(report.serialized)")
            // One round of three questions takes under 2 s; anything near the 60 s duration is an idle tail.
            #expect(elapsed < .seconds(15), "\(elapsed) \(report.serialized)")
            #expect(report["errors"] == .object([:]), "\(report.serialized)")
            #expect(report["violations"] == .object([:]), "\(report.serialized)")
        }

        /// With rooms (one start per game by the host) the count is exact too.
        @Test func roomsStopAtExactlyTheDuelCount() async throws {
            let server = try Self.fastServer()
            defer { server.stop() }
            var config = Self.fleet(server, bots: 6)
            config.roomSize = 3
            config.duels = 3
            config.thinkMs = 50...400
            let started = ContinuousClock.now
            let report = await BotRunner(configuration: config).run()
            #expect(report["duels"]?.integer == 3, "\(report.serialized)")
            #expect(report["errors"] == .object([:]), "\(report.serialized)")
            #expect(ContinuousClock.now - started < .seconds(20), "\(report.serialized)")
            #expect(report["violations"] == .object([:]), "\(report.serialized)")
        }

        /// A server whose password-check queue takes nothing refuses every sign-up with
        /// `rate_limited`: the bots retry as a client should, and the report says so.
        @Test func refusedSignUpsAreCountedInErrors() async throws {
            let server = try Self.fastServer { $0.signIn.hashQueuePerAddress = 0 }
            defer { server.stop() }
            var config = Self.fleet(server, bots: 3)
            config.durationSeconds = 2
            let report = await BotRunner(configuration: config).run()
            #expect((report["errors"]?["rate_limited"]?.integer ?? 0) >= 3, "\(report.serialized)")
            #expect(report["duels"]?.integer == 0, "\(report.serialized)")
        }

        /// Sign-ups and token sign-ins the server refuses are counted by the code it gave.
        @Test func refusedSignInsAreCountedByCode() async throws {
            let server = try Self.fastServer()
            defer { server.stop() }
            var first = Self.fleet(server, bots: 2)
            first.idle = true
            first.durationSeconds = 1
            first.runID = "taken-\(UInt32.random(in: 0...UInt32.max))"
            let signedUp = await BotRunner(configuration: first).run()
            #expect(signedUp["errors"] == .object([:]), "\(signedUp.serialized)")
            // The same names again: both sign-ups are refused.
            let report = await BotRunner(configuration: first).run()
            #expect(report["errors"] == .object(["username_taken": 2]), "\(report.serialized)")
            // A token no session has.
            var stranger = first
            stranger.tokens = [String(repeating: "0", count: 64)]
            stranger.bots = 1
            let refused = await BotRunner(configuration: stranger).run()
            #expect(refused["errors"] == .object(["unauthorized": 1]), "\(refused.serialized)")
        }

        /// The command prints its JSON report on stdout and a short human summary on stderr,
        /// and its help says how a duel is counted.
        @Test func commandPrintsSummaryOnStderr() async throws {
            let server = try Self.fastServer()
            defer { server.stop() }
            let run = try runBots(["--url", server.url, "--bots", "2", "--duels", "1", "--duration", "30"])
            #expect(run.status == 0, "\(run.stderr)")
            let report = try JSONParser.parse(Array(run.stdout.utf8))
            #expect(report["duels"]?.integer == 1, "\(run.stdout)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            func has(_ prefix: String, _ part: String) -> Bool {
                lines.contains { line in line.hasPrefix(prefix) && line.contains(part) }
            }
            #expect(has("duels:", "1 of 1"), "\(run.stderr)")
            #expect(has("answers:", "/s"), "\(run.stderr)")
            #expect(has("errors:", "none"), "\(run.stderr)")
            #expect(has("elapsed:", " s"), "\(run.stderr)")
            #expect(lines.last?.hasPrefix("t=") == false, "a progress line after the summary: \(run.stderr)")
            let help = try runBots(["--help"])
            let helpText = help.stdout
            #expect(helpText.range(of: "counted once") != nil, "\(helpText)")
        }

        /// Runs the `duel-bots` executable built next to the tests.
        func runBots(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let process = Process()
            process.executableURL = TestServer.productsDirectory.appendingPathComponent("duel-bots")
            process.arguments = arguments
            // Both streams go to files (a pipe left unread could fill and block the child).
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("duel-bots-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let outURL = directory.appendingPathComponent("stdout")
            let errURL = directory.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = try FileHandle(forWritingTo: errURL)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            let outData = try Data(contentsOf: outURL)
            let errData = try Data(contentsOf: errURL)
            return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
        }
    }
}
