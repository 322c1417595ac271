import DuelCore
import Foundation
import Testing
@testable import DuelServer

/// The pure parts the server core delegates to: delivery planning, the `banks` copy, the
/// gate every message passes, and HTTP routing.
struct DeliveryPlanTests {
    @Test func sendsEachSeqOnceInOrder() {
        let plan = DeliveryPlan(seqs: [3, 4, 5], delivered: 3, completes: false)
        #expect(plan.send == 1..<3)
        #expect(plan.delivered == 5)
        #expect(plan.gapAfter == nil)
    }

    @Test func stopsAtAGapAndSaysWhereToReadFrom() {
        let plan = DeliveryPlan(seqs: [6, 7], delivered: 4, completes: false)
        #expect(plan.send.isEmpty)
        #expect(plan.delivered == 4)
        #expect(plan.gapAfter == 4)
    }

    @Test func forgetsACompletedDuelOnlyWhenEverythingWasSent() {
        #expect(DeliveryPlan(seqs: [9, 10], delivered: 8, completes: true).delivered == nil)
        let gap = DeliveryPlan(seqs: [9, 10], delivered: 7, completes: true)
        #expect(gap.delivered == 7 && gap.gapAfter == 7)
    }

    @Test func alreadyDeliveredEventsAreNotSentAgain() {
        let plan = DeliveryPlan(seqs: [1, 2, 3], delivered: 3, completes: false)
        #expect(plan.send.isEmpty && plan.delivered == 3 && plan.gapAfter == nil)
    }
}

struct BanksCacheTests {
    @Test func oneReadServesEveryoneWaitingThenTheCopyServes() {
        var cache = BanksCache(maxAgeMs: 2_000)
        #expect(cache.lookup(connection: 1, ref: .int(1), nowMs: 0) == .wait(startRead: true))
        #expect(cache.lookup(connection: 2, ref: .int(2), nowMs: 5) == .wait(startRead: false))
        let waiters = cache.finished(["banks": .array([])], nowMs: 10)
        #expect(waiters.map(\.connection) == [1, 2])
        #expect(cache.lookup(connection: 3, ref: nil, nowMs: 2_009) == .fresh(["banks": .array([])]))
        #expect(cache.lookup(connection: 3, ref: nil, nowMs: 2_010) == .wait(startRead: true))
    }

    @Test func aFailedReadKeepsNoCopy() {
        var cache = BanksCache()
        _ = cache.lookup(connection: 1, ref: nil, nowMs: 0)
        #expect(cache.finished(nil, nowMs: 1).count == 1)
        #expect(cache.lookup(connection: 1, ref: nil, nowMs: 2) == .wait(startRead: true))
    }
}

struct RequestGateTests {
    func verdict(_ text: String, _ limit: RateLimiter.Verdict = .allow, signedIn: Bool) -> String {
        switch RequestGate.admit(Array(text.utf8), limit: limit, signedIn: signedIn) {
        case .dispatch(let envelope): "dispatch \(envelope.request.op)"
        case .refuse(_, let error): "refuse \(error.code.rawValue)"
        case .close: "close"
        }
    }

    @Test func theRateLimitComesFirst() {
        #expect(verdict(#"{"op":"banks"}"#, .refuse, signedIn: true) == "refuse rate_limited")
        #expect(verdict("not json", .close, signedIn: false) == "close")
    }

    @Test func signInIsCheckedBeforeFields() {
        #expect(verdict(#"{"op":"answer","duel_id":5}"#, signedIn: false) == "refuse unauthorized")
        #expect(verdict(#"{"op":"answer","duel_id":5}"#, signedIn: true) == "refuse bad_request")
        #expect(verdict(#"{"op":"queue","bank":"b"}"#, signedIn: false) == "refuse unauthorized")
        #expect(verdict(#"{"op":"banks"}"#, signedIn: false) == "dispatch banks")
        #expect(verdict(#"{"op":"nope"}"#, signedIn: false) == "refuse unknown_op")
        #expect(verdict("[1]", signedIn: true) == "refuse bad_json")
    }
}

struct HTTPRouterTests {
    let router: HTTPRouter

    init() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("<p>hi</p>".utf8).write(to: root.appendingPathComponent("index.html"))
        router = HTTPRouter(files: StaticFiles(root: root.path))
    }

    func figures(healthy: Bool, accepting: Bool = true) -> HTTPRouter.Figures {
        var health = HealthStatus()
        health.record(ok: healthy, reason: healthy ? "ok" : "database: down", atMs: 1_000)
        return HTTPRouter.Figures(health: health, nowMs: 1_500, accepting: accepting, metrics: { "m 1\n" })
    }

    @Test func probes() {
        #expect(router.response(path: "/livez", figures(healthy: false)).status == 200)
        #expect(router.response(path: "/readyz", figures(healthy: false)).status == 503)
        #expect(router.response(path: "/readyz", figures(healthy: true, accepting: false)).status == 503)
        #expect(router.response(path: "/readyz", figures(healthy: true)).status == 200)
        #expect(router.response(path: "/healthz", figures(healthy: true)).status == 200)
    }

    @Test func metricsAndFiles() {
        let metrics = router.response(path: "/metrics", figures(healthy: true))
        #expect(metrics.contentType.hasPrefix("text/plain; version=0.0.4") && metrics.body == Array("m 1\n".utf8))
        #expect(router.response(path: "/", figures(healthy: true)).file?.hasSuffix("index.html") == true)
        #expect(router.response(path: "/../etc/passwd", figures(healthy: true)).status == 404)
        #expect(router.response(path: "/missing.js", figures(healthy: true)).status == 404)
    }
}
