import DuelCore
import DuelStore
import Foundation

/// answer, forfeit, resume, and the delivery of duel events to the players held here.
extension DuelServerCore {
    func answer(
        _ connection: Connection, _ ref: RequestRef?, duel: String, index: Int, submission: Submission, arrivedMs: Int64
    ) {
        let player = connection.player!
        let input = DuelInput.answer(player: player, questionIndex: index, submission: submission, atMs: arrivedMs)
        duelInput(for: connection, duel: duel, input) { core, connection, result in
            if case .success(_?) = result { core.metrics.answersHandled += 1 }
            core.finishDuelRequest(connection, ref, result) { outcome in
                if case .answered(let correct, let points) = outcome {
                    core.metrics.answerLatency.observe(ms: Double(Clock.nowMs() - arrivedMs))
                    return ["correct": .bool(correct), "points": .number(points)]
                }
                return nil
            }
        }
    }

    func forfeit(_ connection: Connection, _ ref: RequestRef?, duel: String, arrivedMs: Int64) {
        let player = connection.player!
        duelInput(for: connection, duel: duel, .forfeit(player: player, atMs: arrivedMs)) { core, connection, result in
            core.finishDuelRequest(connection, ref, result) { outcome in outcome == .accepted ? [:] : nil }
        }
    }

    /// Replies to an answer or forfeit, then delivers the events it caused
    /// (the reply first: a client learns its own verdict before the reveal).
    private func finishDuelRequest(
        _ connection: Connection?, _ ref: RequestRef?, _ result: Result<DuelUpdate?, Error>,
        data: (DuelStep.Outcome) -> JSONObject?
    ) {
        switch result {
        case .failure(let error):
            if let connection { fail(connection, ref, protocolError(error, on: connection)) }
        case .success(nil):
            if let connection { fail(connection, ref, ProtocolError(.unknownDuel)) }
        case .success(let update?):
            if let connection {
                if case .rejected(let rejection) = update.outcome {
                    fail(connection, ref, rejection)
                } else {
                    reply(connection, ref, data(update.outcome) ?? [:])
                }
            }
            apply(update)
        }
    }

    /// Replays the duel's events after `afterSeq`. While the replay is read, live events
    /// of that duel are held back from this connection (``deliver(_:players:)`` skips it);
    /// whatever was committed meanwhile follows the replay, so the connection sees the
    /// duel's events strictly increasing and gap-free from `afterSeq + 1`.
    func resume(_ connection: Connection, _ ref: RequestRef?, duel: String, afterSeq: Int) {
        let player = connection.player!
        resumeGeneration += 1
        let generation = resumeGeneration
        connection.resuming[duel] = generation
        database(for: connection, { db -> [StoredEvent]? in
            guard let players = try db.duelPlayers(id: duel) else { return nil }
            guard players.contains(player) else { throw StoreError(.notInDuel) }
            return try db.events(duel: duel, afterSeq: afterSeq)
        }) { core, connection, result in
            guard let connection else { return }
            let current = connection.resuming[duel] == generation
            if current { connection.resuming[duel] = nil }
            switch result {
            case .success(nil): core.fail(connection, ref, ProtocolError(.unknownDuel))
            case .success(let events?):
                core.reply(connection, ref)
                // Exactly the events after `after_seq`, in order, even ones delivered before.
                let now = Clock.nowMs()
                for event in events {
                    core.send(connection, event.message(serverTimeMs: now))
                    core.metrics.eventsSent += 1
                }
                let delivered = events.last?.seq ?? afterSeq
                connection.deliveredSeq[duel] = delivered
                guard current, events.last?.kind != .complete else { return }
                if core.book.isFinished(duel) || (core.book.seenSeq(duel) ?? 0) > delivered {
                    core.catchUp(connection, duel: duel, after: delivered)
                }
            case .failure(let error): core.fail(connection, ref, core.protocolError(error, on: connection))
            }
        }
    }

    /// Sends a connection the events of `duel` after `after` that it missed while a resume
    /// held its live events back (the duel may have finished meanwhile, so this does not
    /// go through ``deliver(_:players:)``, which ignores finished duels).
    private func catchUp(_ connection: Connection, duel: String, after: Int) {
        database(for: connection, { db in try db.events(duel: duel, afterSeq: after) }) { core, connection, result in
            guard let connection, case .success(let events) = result else { return }
            let now = Clock.nowMs()
            var delivered = connection.deliveredSeq[duel] ?? after
            for event in events where event.seq == delivered + 1 {
                core.send(connection, event.message(serverTimeMs: now))
                core.metrics.eventsSent += 1
                delivered = event.seq
            }
            connection.deliveredSeq[duel] = delivered
        }
    }

    /// Handles a committed duel transaction of this instance: deliver, remember, schedule.
    func apply(_ update: DuelUpdate) {
        if let created = update.created {
            lanes.seed(created)
            logger.debug("duel created", metadata: [
                LogKey.duel: .string(update.duelID), "players": .array(update.players.map { .string($0) })])
        }
        book.setPlayers(update.players, of: update.duelID)
        deliver(update.events, players: update.players)
        deliverNotifications(update.notifications)
        if update.finished {
            // Once, for the step that completed it (late inputs to a finished duel land here too).
            if update.events.last?.kind == .complete {
                logger.debug("duel finished", metadata: [LogKey.duel: .string(update.duelID), "seq": "\(update.seq)"])
            }
            markFinished(update.duelID)
            deadlines.cancel(update.duelID)
        } else if let deadline = update.nextDeadlineMs, book.shouldArmTimer(update.duelID, seq: update.seq) {
            // The newest state knows the next deadline: replace what an older one armed,
            // so a question answered early does not leave a useless wake-up behind.
            schedule(update.duelID, atMs: deadline, replace: true)
        }
    }

    /// A game's notifications (issue 14), stored by its completing transaction: sent here to the
    /// player's connections, or announced on `player_events` for the instance that holds them.
    func deliverNotifications(_ payloads: [String]) {
        var elsewhere: [String] = []
        for payload in payloads {
            guard let player = PlayerEventNotification(payload: payload)?.players.first else { continue }
            if directory.connections(of: player).isEmpty { elsewhere.append(payload) } else { playerEventsNotified(payload) }
        }
        guard !elsewhere.isEmpty else { return }
        let payloads = elsewhere
        database(for: nil, priority: .background, { db in try db.announcePlayerEvents(payloads) }) { core, _, result in
            if case .failure(let error) = result {
                core.logger.warning("could not announce notifications", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Sends stored events to every local connection of `players`, each event once
    /// and in seq order. A connection that would see a gap fetches what it missed.
    func deliver(_ events: [StoredEvent], players: [PlayerID]) {
        guard let last = events.last, !book.isFinished(last.duelID) else { return }
        let completes = events.contains { $0.kind == .complete }
        book.saw(last.duelID, seq: last.seq)
        // Each event's envelope is built once; every connection queues that same text.
        let now = Clock.nowMs()
        var messages = [String?](repeating: nil, count: events.count)
        let seqs = events.lazy.map(\.seq)
        for player in players {
            for id in directory.connections(of: player) {
                guard let connection = connections[id] else { continue }
                // A resume of this duel is being read: its replay, then a catch-up, come first.
                if connection.resuming[last.duelID] != nil { continue }
                let plan = DeliveryPlan(
                    seqs: seqs, delivered: connection.deliveredSeq[last.duelID] ?? 0, completes: completes)
                for index in plan.send {
                    if messages[index] == nil { messages[index] = events[index].message(serverTimeMs: now) }
                    send(connection, messages[index]!)
                }
                metrics.eventsSent += plan.send.count
                connection.deliveredSeq[last.duelID] = plan.delivered
                if let gap = plan.gapAfter { fillGap(connection, duel: last.duelID, after: gap) }
            }
        }
        if completes { markFinished(last.duelID) }
    }

    /// Forgets a finished duel's bookkeeping, remembering only that it finished,
    /// so a late NOTIFY of its last events is not delivered twice.
    func markFinished(_ duel: String) {
        book.finish(duel)
    }

    private func fillGap(_ connection: Connection, duel: String, after: Int) {
        database(for: connection, { db in try db.events(duel: duel, afterSeq: after) }) { core, connection, result in
            guard let player = connection?.player, case .success(let events) = result else { return }
            core.deliver(events, players: [player])
        }
    }

    /// A NOTIFY on `duel_events` (see ``DuelNotification``), from any instance: one
    /// database read fetches what this instance has not delivered of the duels whose
    /// players it holds (``DuelBook/wanted(_:isLocal:)``). One read per notification, not
    /// per duel: another instance's batch names many duels.
    func duelEventsNotified(_ payload: String) {
        guard let notification = DuelNotification(payload: payload), notification.origin != instance else { return }
        readEvents(notification.ranges)
    }

    /// Events up to each `lastSeq` exist for these duels (a notification, or a resynchronization).
    func readEvents(_ ranges: [DuelNotification.Range]) {
        let wanted = book.wanted(ranges, isLocal: directory.isLocal)
        guard !wanted.isEmpty else { return }
        let reads = wanted
        database(for: nil, { db in try db.events(after: reads) }) { core, _, result in
            guard case .success(let found) = result else { return }
            for (duel, entry) in found {
                core.book.setPlayers(entry.players, of: duel)
                // Events from seq 1 when this instance never saw the duel: a new duel of a player held here.
                core.deliver(entry.events, players: entry.players)
            }
        }
    }
}
