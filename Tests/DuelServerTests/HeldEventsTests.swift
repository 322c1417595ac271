import DuelCore
@testable import DuelServer
@testable import DuelStore
import Foundation
import Testing

/// Events stored ahead of the clock (a question opened in its reveal's step, issue 25) reach no
/// connection before their time, and a later event of the duel releases them in order.
@Suite struct HeldEventsTests {
    private func event(_ seq: Int, _ kind: DuelEventKind, at atMs: Int64, duel: String = "d") -> StoredEvent {
        StoredEvent(duelID: duel, seq: seq, kind: kind, atMs: atMs, recordJSON: #"{"seq":\#(seq)}"#)
    }

    private func seqs(_ parts: Parts, _ connection: Connection) -> [Int] {
        parts.transport.texts(to: connection.id).compactMap { text in try? JSONParser.parse(text)["seq"]?.integer }.map { Int($0) }
    }

    /// Fires the delivery's release timer as the loop would once it is due.
    private func fireDue(_ parts: Parts) {
        for (key, _) in parts.timer.popDue(nowMs: Clock.nowMs()) { _ = parts.timer.fireHandler(of: key) }
    }

    /// A and B's game just revealed a question (seq 2); question 1 (seq 3) opens `questionInMs`
    /// from now. Returns now.
    private func inThePause(_ parts: Parts, questionInMs: Int64) -> Int64 {
        let now = Clock.nowMs()
        parts.delivery.deliver([event(1, .`init`, at: now - 5), event(2, .reveal, at: now - 1),
                                event(3, .question, at: now + questionInMs)], players: ["a", "b"])
        return now
    }

    @Test func splitCutsAfterTheLastEventDue() {
        let events = [event(1, .reveal, at: 10), event(2, .question, at: 30), event(3, .complete, at: 20), event(4, .question, at: 50)]
        let (due, ahead) = HeldEvents.split(events, nowMs: 25)
        // The `complete` is due, so the question before it goes with it; only the last waits.
        #expect(due.map(\.seq) == [1, 2, 3])
        #expect(ahead.map(\.seq) == [4])
        #expect(HeldEvents.split(events, nowMs: 5).due.isEmpty)
        #expect(HeldEvents.split(events, nowMs: 50).ahead.isEmpty)
    }

    @Test func admitMergesWithWhatIsHeldEachSeqOnce() {
        var held = HeldEvents()
        #expect(held.admit([event(4, .reveal, at: 10), event(5, .question, at: 100)], players: ["a"], nowMs: 20).events.map(\.seq) == [4])
        #expect(held.firstDueMs(of: "d") == 100)
        // Another instance's copy of the same events, for the other player: still held, for both.
        #expect(held.admit([event(5, .question, at: 100)], players: ["b"], nowMs: 30).events.isEmpty)
        let released = held.popDue(nowMs: 100)
        #expect(released.count == 1)
        #expect(released.first?.events.map(\.seq) == [5])
        #expect(released.first?.players == ["a", "b"])
        #expect(held.count == 0 && held.nextDueMs == nil)
    }

    @Test func aQuestionAheadWaitsForItsTimeThenGoesToEveryConnection() async throws {
        let parts = Parts()
        let a = parts.connect(1, as: "a"), b = parts.connect(2, as: "b")
        let now = inThePause(parts, questionInMs: 150)
        #expect(seqs(parts, a) == [1, 2] && seqs(parts, b) == [1, 2])
        fireDue(parts)
        #expect(seqs(parts, a) == [1, 2], "released before its time")
        try await Task.sleep(for: .milliseconds(170))
        fireDue(parts)
        #expect(seqs(parts, a) == [1, 2, 3] && seqs(parts, b) == [1, 2, 3])
        // The timer's copy and a later delivery of the same event send nothing twice.
        parts.delivery.deliver([event(3, .question, at: now + 150)], players: ["a", "b"])
        #expect(seqs(parts, a) == [1, 2, 3])
    }

    /// A gap fill for one player (or any delivery naming fewer players) that finds a held event
    /// due takes it out for everyone it was held for, not only for the player it names.
    @Test func aDeliveryForOnePlayerReleasesTheHeldEventForAll() async throws {
        let parts = Parts()
        let a = parts.connect(1, as: "a"), b = parts.connect(2, as: "b")
        let now = inThePause(parts, questionInMs: 50)
        try await Task.sleep(for: .milliseconds(70))
        // Due now, but the release timer has not run: a read for A alone brings it out.
        parts.delivery.deliver([event(3, .question, at: now + 50)], players: ["a"])
        #expect(seqs(parts, a) == [1, 2, 3] && seqs(parts, b) == [1, 2, 3])
    }

    @Test func anEndInThePauseReleasesTheHeldQuestionFirst() {
        let parts = Parts()
        let a = parts.connect(1, as: "a")
        let now = inThePause(parts, questionInMs: 60_000)
        parts.delivery.deliver([event(4, .complete, at: now)], players: ["a", "b"])
        #expect(seqs(parts, a) == [1, 2, 3, 4])
    }

    @Test func aSignInInThePauseShowsTheRevealAndHoldsTheQuestion() async throws {
        let parts = Parts()
        let a = parts.connect(1, as: "a")
        let now = Clock.nowMs()
        let live = parts.delivery.signedIn(a, live: [event(6, .reveal, at: now - 1), event(7, .question, at: now + 100)])
        #expect(live?.seq == 6)
        #expect(seqs(parts, a).isEmpty)
        try await Task.sleep(for: .milliseconds(120))
        fireDue(parts)
        #expect(seqs(parts, a) == [7])
    }
}
