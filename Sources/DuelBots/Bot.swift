import DuelClient
import DuelCore
import Foundation

/// One load-test bot: signs up, queues, plays by the rules, queues again, and
/// checks the rules as it plays (gap-free seq, nothing hidden before a reveal,
/// scores matching the reveals). Every broken rule counts as a violation.
struct Bot {
    let index: Int
    let configuration: BotConfiguration
    let stats: BotStats
    let loop: ClientLoop

    func run(until deadline: ContinuousClock.Instant, shouldStop: @escaping @Sendable () -> Bool) async {
        let client: DuelClient
        do {
            client = try DuelClient(url: configuration.url, loop: loop)
            try await client.connect()
        } catch {
            stats.error("connect_failed")
            return
        }
        stats.update { $0.connected += 1 }
        defer {
            client.close()
            stats.update { $0.connected -= 1 }
        }
        let name = "bot-\(configuration.runID)-\(index)"
        let login: JSONValue?
        if index < configuration.tokens.count {
            login = try? await client.request("auth", ["token": .string(configuration.tokens[index])], timeout: .seconds(120))
        } else {
            login = try? await client.request(
                "signup", ["username": .string(name), "password": "bot password 123"], timeout: .seconds(120))
        }
        guard let login, let me = login["data"]?["player"]?["id"]?.string else {
            stats.error("login_failed")
            return
        }
        // A duel left over from an earlier run (same token) would block queueing: give it up.
        if let leftover = login["data"]?["duel"]?["id"]?.string {
            _ = try? await client.request("forfeit", ["duel_id": .string(leftover)])
        }
        if configuration.idle {
            while ContinuousClock.now < deadline && !shouldStop() { try? await Task.sleep(for: .milliseconds(250)) }
            return
        }
        while ContinuousClock.now < deadline && !shouldStop() && !client.isClosed {
            await playOneDuel(client, me: me, deadline: deadline, shouldStop: shouldStop)
        }
    }

    private func record(_ reply: JSONValue) {
        if let code = reply["code"]?.string { stats.error(code) }
    }

    private func playOneDuel(
        _ client: DuelClient, me: String, deadline: ContinuousClock.Instant, shouldStop: @Sendable () -> Bool
    ) async {
        let queuedAt = nowMicros()
        stats.update { $0.waiting += 1 }
        guard let queued = try? await client.request("queue", ["bank": .string(configuration.bank)]) else {
            stats.update { $0.waiting -= 1 }
            stats.error("queue_failed")
            return
        }
        record(queued)
        if queued["ok"] != true {
            stats.update { $0.waiting -= 1 }
            try? await Task.sleep(for: .milliseconds(200))
            return
        }
        var duel: String?
        while duel == nil {
            guard ContinuousClock.now < deadline, !shouldStop(), let message = await client.next(timeout: .milliseconds(250)) else {
                if ContinuousClock.now >= deadline || client.isClosed || shouldStop() {
                    stats.update { $0.waiting -= 1 }
                    _ = try? await client.request("cancel", timeout: .seconds(5))
                    return
                }
                continue
            }
            if message["event"] == "init" { duel = message["duel_id"]?.string }
        }
        let matched = nowMicros() - queuedAt
        stats.update {
            $0.waiting -= 1
            $0.inDuel += 1
            $0.timeToMatch.record(matched)
        }
        defer { stats.update { $0.inDuel -= 1 } }
        await play(client, me: me, duel: duel!, until: deadline)
    }

    private func play(_ client: DuelClient, me: String, duel: String, until deadline: ContinuousClock.Instant) async {
        var lastSeq = 1
        var seenAnswers = Set<String>()
        var pointsFromReveals: [String: Int64] = [:]
        var answeredIndex = -1
        while true {
            if ContinuousClock.now >= deadline {
                // The run is over: give the duel up so the opponent is not left waiting for deadlines.
                _ = try? await client.request("forfeit", ["duel_id": .string(duel)], timeout: .seconds(5))
                return
            }
            let wait = min(Duration.seconds(60), deadline - ContinuousClock.now + .milliseconds(1))
            guard let received = await client.nextReceived(timeout: wait) else {
                if client.isClosed || ContinuousClock.now < deadline { break }
                continue
            }
            let message = received.message
            guard message["duel_id"] == .string(duel), let seq = message["seq"]?.integer else { continue }
            if Int(seq) != lastSeq + 1 { stats.violation("seq_gap") }
            lastSeq = Int(seq)
            let record = message["record"] ?? .null
            checkHidden(record)
            switch message["event"]?.string {
            case "question":
                guard let question = record["question"], let index = question["index"]?.integer,
                      Int(index) > answeredIndex, case .array(let options)? = question["choices"]
                else { continue }
                answeredIndex = Int(index)
                if Double.random(in: 0..<1) < configuration.skipRate { continue }
                let think = Int.random(in: configuration.thinkMs)
                if think > 0 { try? await Task.sleep(for: .milliseconds(think)) }
                let questionID = question["question_id"]?.integer ?? -1
                let known = stats.state.withLock { $0.knowledge[questionID] }
                let choice = (known != nil && Double.random(in: 0..<1) < configuration.accuracy)
                    ? known! : Int.random(in: 0..<options.count)
                let sent = nowMicros()
                stats.update { $0.sentAt["\(duel)/\(index)/\(me)"] = sent }
                guard let reply = try? await client.request("answer", [
                    "duel_id": .string(duel), "question_index": .int(index), "choice": .number(choice),
                ]) else { return }
                stats.update {
                    $0.answerToReply.record(nowMicros() - sent)
                    $0.answers += 1
                }
                // Losing a race to the opponent, the deadline or the duel's end is part of the game, not an error.
                if let code = reply["code"]?.string, !["locked_out", "too_late", "duel_over"].contains(code) {
                    stats.error(code)
                }
            case "answered":
                let index = record["question_index"]?.integer ?? -1
                if case .array(let answers)? = record["answers"] {
                    for answer in answers {
                        guard let player = answer["player"]?.string, player != me else { continue }
                        let key = "\(duel)/\(index)/\(player)"
                        if seenAnswers.insert(key).inserted {
                            let now = received.receivedAtMicros
                            stats.update { state in
                                if let sent = state.sentAt.removeValue(forKey: key) {
                                    state.answerToOpponent.record(now > sent ? now - sent : 0)
                                }
                            }
                        }
                    }
                }
            case "reveal":
                guard let reveal = record["reveal"], let correct = reveal["correct_choice"]?.integer else { continue }
                let questionID = record["question"]?["question_id"]?.integer ?? -1
                if case .object(let points)? = reveal["points"] {
                    for (player, value) in points.pairs { pointsFromReveals[player, default: 0] += value.integer ?? 0 }
                }
                let deadline = record["question"]?["deadline_ms"]?.integer ?? 0
                let anyCorrect: Bool = {
                    if case .array(let answers)? = record["answers"] { return answers.contains { $0["correct"] == true } }
                    return false
                }()
                let answerCount: Int = {
                    if case .array(let answers)? = record["answers"] { return answers.count }
                    return 0
                }()
                // Arrival on the wall clock: now minus how long the message waited to be read.
                let waited = Int64((nowMicros() - received.receivedAtMicros) / 1_000)
                let lateness = wallMs() - waited - deadline
                stats.update { state in
                    state.knowledge[questionID] = Int(correct)
                    // Only reveals the deadline caused measure lateness.
                    if !anyCorrect && answerCount < 2 { state.revealLateness.record(UInt64(max(0, lateness)) * 1_000) }
                    state.sentAt.removeValue(forKey: "\(duel)/\(record["question_index"]?.integer ?? -1)/\(me)")
                }
            case "complete":
                if case .array(let players)? = record["players"] {
                    for player in players {
                        guard let id = player["id"]?.string else { continue }
                        if (player["score"]?.integer ?? -1) != pointsFromReveals[id, default: 0] {
                            stats.violation("score_mismatch")
                        }
                    }
                }
                // Each duel is counted once, by the player listed first.
                if case .array(let players)? = record["players"], players.first?["id"] == .string(me) {
                    stats.update { $0.duelsDone += 1 }
                }
                return
            default:
                break
            }
        }
        stats.error("duel_timeout")
    }

    /// Rule 10 as the bot sees it.
    private func checkHidden(_ record: JSONValue) {
        let state = record["state"]?.string
        if (state == "question" || state == "countdown") && record["reveal"] != .null { stats.violation("early_reveal") }
        if record["question"]?["correct_choice"] != nil { stats.violation("leaked_correct_choice") }
        if case .array(let answers)? = record["answers"], answers.contains(where: { $0["choice"] != nil }) {
            stats.violation("leaked_choice")
        }
    }
}
