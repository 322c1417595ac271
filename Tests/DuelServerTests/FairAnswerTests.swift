import DuelBots
import DuelClient
import DuelCore
import Foundation
import Testing

/// Issue 26 over real sockets: a far player (behind a proxy that delays every byte, pongs
/// included) against a near one, with the server measuring both round trips itself; and a
/// client that delays only its pongs to look far away. This machine's kernel has no `netem`,
/// so ``DelayProxy`` holds the bytes back. A proxy connects from 127.0.0.2, which the server
/// lists as a trusted proxy: for those connections the kernel's RTT is the proxy's, so only the
/// capped ping estimate applies.
@Suite(.serialized) struct FairAnswerTests {
    /// Whose answer won each question of the races: the far player's, the near one's.
    struct Tally { var far = 0, near = 0, settleMs: [Int64] = [] }

    static func server(capMs: Int64) throws -> TestServer {
        try TestServer.start {
            $0.network.fairCapMs = capMs
            $0.network.trustedProxies = ["127.0.0.2"]
            // Long enough a countdown for two pings before the first question.
            $0.duel = DuelConfiguration(countdownMs: 2_500, answerWindowMs: 2_000, revealMs: 100, abandonAfterMs: 10_000,
                                        questionCount: 10)
        }
    }

    /// `pairs` duels, each a player through `farProxy` (or direct when nil) against one through
    /// `nearProxy` (or direct); each answers every question right, `farReactionMs` and
    /// `nearReactionMs` after it reached them.
    static func race(_ server: TestServer, pairs: Int, farProxy: DelayProxy?, nearProxy: DelayProxy? = nil,
                     farReactionMs: Int, nearReactionMs: Int) async throws -> Tally {
        func url(_ proxy: DelayProxy?) -> String { proxy.map { "ws://127.0.0.1:\($0.port)/duel" } ?? server.url }
        return try await withThrowingTaskGroup(of: Tally.self) { group in
            // Each pair plays as soon as it is matched (its countdown is short).
            for _ in 0..<pairs {
                let far = try await TestPlayer.signUp(url(farProxy))
                let near = try await TestPlayer.signUp(url(nearProxy))
                _ = try await far.client.request("queue", ["bank": "world-capitals"])
                _ = try await near.client.request("queue", ["bank": "world-capitals"])
                guard let start = await far.client.nextEvent("init"), let id = start["duel_id"]?.string,
                      await near.client.nextEvent("init")?["duel_id"]?.string == id
                else { throw DuelClientError.timeout("init") }
                group.addTask {
                    let keys = try (0..<10).map { try correctChoice(server, duel: id, index: $0) }
                    async let farPlays: Void = play(far, duel: id, keys: keys, reactionMs: farReactionMs)
                    async let nearPlays: Void = play(near, duel: id, keys: keys, reactionMs: nearReactionMs)
                    _ = try await (farPlays, nearPlays)
                    return try await tally(near, far: far.id)
                }
            }
            var total = Tally()
            for try await tally in group {
                total.far += tally.far
                total.near += tally.near
                total.settleMs += tally.settleMs
            }
            return total
        }
    }

    /// Answers each question right `reactionMs` after its `question` event arrived, until the duel completes.
    static func play(_ player: TestPlayer, duel: String, keys: [Int], reactionMs: Int) async throws {
        var answered = 0
        while answered < keys.count {
            guard let received = await player.client.nextReceived(timeout: .seconds(20)) else { throw DuelClientError.timeout("question") }
            let message = received.message
            if message["event"] == "complete" { return }
            guard message["event"] == "question", let index = message["record"]?["question"]?["index"]?.integer else { continue }
            let due = received.receivedAtMicros + UInt64(reactionMs) * 1_000
            let now = DispatchTime.now().uptimeNanoseconds / 1_000
            if due > now { try await Task.sleep(for: .microseconds(Int(due - now))) }
            let reply = try await player.client.request("answer", [
                "duel_id": .string(duel), "question_index": .number(Int(index)), "choice": .number(keys[Int(index)]),
            ])
            #expect(reply["op"] == "reply" || ["locked_out", "too_late", "duel_over"].contains(reply["code"]?.string), "\(reply.serialized)")
            answered += 1
        }
    }

    /// Who won each question, from the stored reveals (the near player's transcript would do,
    /// but the store has them all, in order).
    static func tally(_ near: TestPlayer, far: PlayerID) async throws -> Tally {
        var tally = Tally()
        for line in near.client.transcript {
            guard let message = try? JSONParser.parse(Array(line.utf8)), message["event"] == "reveal",
                  case .object(let points)? = message["record"]?["reveal"]?["points"],
                  case .array(let answers)? = message["record"]?["answers"] else { continue }
            for (player, value) in points.pairs where value != .int(0) {
                if player == far { tally.far += 1 } else { tally.near += 1 }
                // How long after the winner's arrival the question settled.
                if let winner = answers.first(where: { $0["player"] == .string(player) }), let at = winner["at_ms"]?.integer,
                   let revealed = message["server_time_ms"]?.integer {
                    tally.settleMs.append(revealed - at)
                }
            }
        }
        return tally
    }

    @Test func aFarPlayerWhoAnswersSoonerWinsWithCompensationAndLosesWithout() async throws {
        for capMs: Int64 in [250, 0] {
            let server = try Self.server(capMs: capMs)
            defer { server.stop() }
            let proxy = try DelayProxy(targetPort: server.port, upMs: 100, downMs: 100, sourceAddress: "127.0.0.2")
            defer { proxy.stop() }
            // The far player reacts 60 ms sooner, but their answer arrives 140 ms later.
            let tally = try await Self.race(server, pairs: 10, farProxy: proxy, farReactionMs: 240, nearReactionMs: 300)
            print("fairness: cap \(capMs) ms: far player won \(tally.far), near player \(tally.near) of 100")
            #expect(tally.far + tally.near == 100)
            if capMs > 0 {
                #expect(tally.far >= 95, "compensation on: the far player won \(tally.far) of 100")
            } else {
                #expect(tally.near >= 95, "compensation off: the near player won \(tally.near) of 100")
            }
        }
    }

    /// Equal players at equal distances (both 50 ms away one way): the faster one wins every
    /// race, as without compensation, and a question settles at most two round trips after
    /// the winning answer arrived.
    @Test func equalDistancesDecideAsWithoutCompensationAndSettleWithinTwoRoundTrips() async throws {
        let server = try Self.server(capMs: 250)
        defer { server.stop() }
        let a = try DelayProxy(targetPort: server.port, upMs: 50, downMs: 50, sourceAddress: "127.0.0.2")
        let b = try DelayProxy(targetPort: server.port, upMs: 50, downMs: 50, sourceAddress: "127.0.0.2")
        defer { a.stop(); b.stop() }
        let tally = try await Self.race(server, pairs: 3, farProxy: a, nearProxy: b, farReactionMs: 300, nearReactionMs: 340)
        print("fairness: equal distances: settles \(tally.settleMs.sorted()) ms after the winning answer")
        #expect(tally.far == 30 && tally.near == 0, "the faster player won \(tally.far) of 30")
        #expect(tally.settleMs.count == 30 && tally.settleMs.allSatisfy { $0 <= 200 }, "settles: \(tally.settleMs)")
    }

    /// The credit the server gave `cheater`'s answers (`credit_ms` in the reveals).
    static func credits(_ cheater: TestPlayer, near: TestPlayer, server: TestServer) async throws -> [Int64] {
        _ = try await cheater.client.request("queue", ["bank": "world-capitals"])
        _ = try await near.client.request("queue", ["bank": "world-capitals"])
        guard let start = await cheater.client.nextEvent("init"), let id = start["duel_id"]?.string
        else { throw DuelClientError.timeout("init") }
        let keys = try (0..<10).map { try correctChoice(server, duel: id, index: $0) }
        // Only the cheater answers, so every question is theirs and shows its credit.
        // 400 ms: the credit never reaches back before the question opened.
        try await play(cheater, duel: id, keys: Array(keys.prefix(3)), reactionMs: 400)
        _ = await cheater.client.nextEvent("reveal", timeout: .seconds(5))
        var credits: [Int64] = []
        for line in cheater.client.transcript {
            guard let message = try? JSONParser.parse(Array(line.utf8)), message["event"] == "reveal",
                  case .array(let answers)? = message["record"]?["answers"] else { continue }
            for answer in answers where answer["player"] == .string(cheater.id) {
                if let credit = answer["credit_ms"]?.integer { credits.append(credit) }
            }
        }
        return credits
    }

    /// A client that delays only its pongs by 200 ms: on a direct connection the kernel's
    /// round trip bounds its credit (at most 5 ms gained); through a trusted proxy, only the cap.
    @Test func delayedPongsGainAtMostFiveMillisecondsDirectAndTheCapThroughAProxy() async throws {
        let server = try Self.server(capMs: 250)
        defer { server.stop() }
        // Not a trusted proxy (it connects from 127.0.0.1): to the server it is the client itself.
        let direct = try DelayProxy(targetPort: server.port, upMs: 200, downMs: 0, pongsOnly: true)
        let proxied = try DelayProxy(targetPort: server.port, upMs: 200, downMs: 0, pongsOnly: true, sourceAddress: "127.0.0.2")
        defer { direct.stop(); proxied.stop() }
        let directCredits = try await Self.credits(
            try await TestPlayer.signUp("ws://127.0.0.1:\(direct.port)/duel"), near: try await TestPlayer.signUp(server.url),
            server: server)
        #expect(directCredits.count == 3 && directCredits.allSatisfy { $0 <= 5 }, "direct credits \(directCredits)")
        let proxiedCredits = try await Self.credits(
            try await TestPlayer.signUp("ws://127.0.0.1:\(proxied.port)/duel"), near: try await TestPlayer.signUp(server.url),
            server: server)
        print("fairness: credits for 200 ms of delayed pongs: direct \(directCredits) ms, proxied \(proxiedCredits) ms")
        // Through the proxy the delayed pongs do count (the check that the pongs really were
        // delayed), and never beyond the cap.
        #expect(proxiedCredits.count == 3 && proxiedCredits.allSatisfy { $0 >= 150 && $0 <= 250 },
                "proxied credits \(proxiedCredits)")
    }

    /// Answers one question of a fresh duel between `near` and `far` (already signed in): the
    /// near player answers right after `nearReactionMs`, the far one (when `farAnswers`) after
    /// `farReactionMs`. Returns the near player's reply, how long it took, and the reveal.
    static func oneQuestion(_ server: TestServer, near: TestPlayer, far: TestPlayer, nearReactionMs: Int,
                            farAnswers: Bool, farReactionMs: Int = 0) async throws -> (JSONValue, Int, JSONValue?) {
        _ = try await near.client.request("queue", ["bank": "world-capitals"])
        _ = try await far.client.request("queue", ["bank": "world-capitals"])
        guard let start = await near.client.nextEvent("init"), let id = start["duel_id"]?.string,
              await far.client.nextEvent("init") != nil
        else { throw DuelClientError.timeout("init") }
        let key = try correctChoice(server, duel: id, index: 0)
        async let farPlays: Void = {
            guard farAnswers, await far.client.nextEvent("question") != nil else { return }
            try await Task.sleep(for: .milliseconds(farReactionMs))
            _ = try await far.client.request("answer", ["duel_id": .string(id), "question_index": 0, "choice": .number(key)])
        }()
        guard await near.client.nextEvent("question") != nil else { throw DuelClientError.timeout("question") }
        try await Task.sleep(for: .milliseconds(nearReactionMs))
        let sent = ContinuousClock.now
        let reply = try await near.client.request("answer", ["duel_id": .string(id), "question_index": 0, "choice": .number(key)])
        let waited = Int((ContinuousClock.now - sent).components.attoseconds / 1_000_000_000_000_000)
            + Int((ContinuousClock.now - sent).components.seconds) * 1_000
        try await farPlays
        let reveal = await near.client.nextEvent("reveal", timeout: .seconds(5))
        return (reply, waited, reveal)
    }

    /// Nobody beats the near player's answer: it waits for the far player (lag about 200 ms),
    /// the settle's timer judges it, and the held reply then says it won.
    @Test func aSettleNobodyBeatsIsJudgedByItsTimerAndTheReplyFollows() async throws {
        let server = try Self.server(capMs: 250)
        defer { server.stop() }
        let proxy = try DelayProxy(targetPort: server.port, upMs: 100, downMs: 100, sourceAddress: "127.0.0.2")
        defer { proxy.stop() }
        let near = try await TestPlayer.signUp(server.url)
        let far = try await TestPlayer.signUp("ws://127.0.0.1:\(proxy.port)/duel")
        let (reply, waited, reveal) = try await Self.oneQuestion(server, near: near, far: far, nearReactionMs: 300,
                                                                  farAnswers: false)
        #expect(reply["data"]?["correct"] == true, "\(reply.serialized)")
        #expect(waited >= 150 && waited < 1_000, "the reply came after \(waited) ms")
        #expect(reveal?["record"]?["reveal"]?["points"]?[near.id] != .int(0))
    }

    /// Two instances: the near player's answer waits on one, the far player's wins on the
    /// other (its lane judges the settle), and the first instance's held reply comes from the
    /// reveal it hears: `locked_out`.
    @Test func aSettleJudgedOnAnotherInstanceRepliesThroughItsReveal() async throws {
        let first = try Self.server(capMs: 250)
        defer { first.stop() }
        let second = try first.another {
            $0.network.fairCapMs = 250
            $0.network.trustedProxies = ["127.0.0.2"]
            $0.duel = DuelConfiguration(countdownMs: 2_500, answerWindowMs: 2_000, revealMs: 100, abandonAfterMs: 10_000,
                                        questionCount: 10)
        }
        defer { second.stop() }
        let proxy = try DelayProxy(targetPort: second.port, upMs: 100, downMs: 100, sourceAddress: "127.0.0.2")
        defer { proxy.stop() }
        let near = try await TestPlayer.signUp(first.url)
        let far = try await TestPlayer.signUp("ws://127.0.0.1:\(proxy.port)/duel")
        // Far reacts 60 ms sooner; its answer arrives 140 ms after the near one's.
        let (reply, _, reveal) = try await Self.oneQuestion(first, near: near, far: far, nearReactionMs: 300,
                                                             farAnswers: true, farReactionMs: 240)
        #expect(reply["code"] == "locked_out", "\(reply.serialized)")
        #expect(reveal?["record"]?["reveal"]?["points"]?[far.id] != .int(0))
    }
}
