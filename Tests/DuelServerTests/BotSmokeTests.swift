import DuelBots
import DuelCore
import Testing

extension ServerTests {
    /// The load-test bots against a test server: real duels, no errors, no rule violations.
    @Suite(.serialized) struct BotSmokeTests {
        @Test func twentyBotsPlayTenDuelsCleanly() async throws {
            let server = try TestServer.start {
                $0.duel = DuelConfiguration(countdownMs: 0, answerWindowMs: 1_000, revealMs: 0, abandonAfterMs: 10_000, questionCount: 3)
                $0.messagesPerSecond = 200
                $0.messageBurst = 400
            }
            defer { server.stop() }
            var config = BotConfiguration()
            config.url = server.url
            config.bots = 20
            config.duels = 10
            config.durationSeconds = 60
            config.thinkMs = 0...50
            let report = await BotRunner(configuration: config).run()
            #expect((report["duels"]?.integer ?? 0) >= 10, "\(report.serialized)")
            #expect(report["errors"] == .object([:]), "\(report.serialized)")
            #expect(report["violations"] == .object([:]), "\(report.serialized)")
            #expect((report["answers"]?.integer ?? 0) > 0)
            #expect((report["time_to_match"]?["count"]?.integer ?? 0) >= 20)
        }
    }
}
