import Testing

@testable import DuelServer

struct HealthStatusTests {
    @Test func freshOkIsHealthyAndStaleIsNot() {
        var health = HealthStatus(freshForMs: 5_000)
        #expect(health.response(nowMs: 1_000).status == 503)
        #expect(health.response(nowMs: 1_000).body.contains("starting"))
        health.record(ok: true, reason: "ok", atMs: 10_000)
        #expect(health.response(nowMs: 14_999).status == 200)
        let stale = health.response(nowMs: 17_000)
        #expect(stale.status == 503 && stale.body.contains("not checked for 7 s"))
        health.record(ok: false, reason: "database: down", atMs: 20_000)
        let failing = health.response(nowMs: 20_001)
        #expect(failing.status == 503 && failing.body.contains("database: down"))
    }
}
