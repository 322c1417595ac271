import TestSupport
import DuelCore
@testable import DuelStore
import Foundation
import Testing

/// The learning diary's rest (issue 27, item 7): goal reminders, with time as an input, sent
/// exactly once; a player's own note and colour per bank, private to them.
@Suite struct LearningDiaryStoreTests {
    func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    func reminders(_ connection: PGConnection, _ player: PlayerID) throws -> [PGRow] {
        try connection.query("""
            SELECT data FROM notifications WHERE player_id = \(player)::uuid AND kind = 'goal_reminder' ORDER BY id
            """)
    }

    /// A reminder at a time of the goal's week: a minute from now, or just before the week ends.
    func reminderTime(_ connection: PGConnection, _ player: PlayerID) throws -> (at: Int64, due: Int64) {
        let goals = try ProgressRepository(connection).setGoal(player: player, GoalDraft(kind: .games, bank: nil, target: 2))
        let dueText = try #require(goals[0]["due_at"]?.string)
        let due = try #require(Timestamp.milliseconds(iso8601: dueText))
        return (min(nowMs() + 60_000, due - 1_000), due)
    }

    @Test func aReminderIsSentOnceAtItsTimeWithTimeAsAnInput() async throws {
        let fixture = try StoreFixture(workers: 1)
        let player = try await fixture.players(1, prefix: "r\(UUID().uuidString.prefix(6))")[0]
        let connection = try fixture.connect()
        defer { connection.close() }
        let progress = ProgressRepository(connection)
        let (at, due) = try reminderTime(connection, player)
        let set = try progress.setGoal(player: player, GoalDraft(kind: .games, bank: nil, target: 2, reminder: .at(ms: at)))
        #expect(set[0]["remind_at"] == .string(Timestamp.iso8601(ms: at)) && set[0]["reminded"] == false)

        #expect(try progress.sendReminders(nowMs: at - 1, outbox: Outbox()) == 0)
        let outbox = Outbox()
        #expect(try progress.sendReminders(nowMs: at, outbox: outbox) == 1)
        #expect(outbox.events.count == 1 && outbox.events[0].players == [player])
        #expect(try progress.sendReminders(nowMs: at + 1_000, outbox: Outbox()) == 0)
        let sent = try reminders(connection, player)
        #expect(sent.count == 1)
        let data = try JSONParser.parse(try sent[0].string("data"))
        #expect(data["kind"] == "games" && data["target"] == 2 && data["progress"] == 0 && data["bank"] == .null)
        #expect(data["due_at"] == .string(Timestamp.iso8601(ms: due)))
        #expect(try progress.goals(player: player)[0]["reminded"] == true)

        // Setting the goal again without remind_at keeps the reminder as it is: not sent again.
        _ = try progress.setGoal(player: player, GoalDraft(kind: .games, bank: nil, target: 3))
        #expect(try progress.sendReminders(nowMs: at + 2_000, outbox: Outbox()) == 0)
        // A new time is a new reminder; null clears it.
        let later = min(at + 10_000, due - 1)
        _ = try progress.setGoal(player: player, GoalDraft(kind: .games, bank: nil, target: 3, reminder: .at(ms: later)))
        #expect(try progress.sendReminders(nowMs: later, outbox: Outbox()) == 1)
        let cleared = try progress.setGoal(player: player, GoalDraft(kind: .games, bank: nil, target: 3, reminder: .clear))
        #expect(cleared[0]["remind_at"] == .null)
        #expect(try reminders(connection, player).count == 2)
    }

    @Test func aReminderOutsideNowAndTheDueTimeIsRefusedAndChangesNothing() async throws {
        let fixture = try StoreFixture(workers: 1)
        let player = try await fixture.players(1, prefix: "r\(UUID().uuidString.prefix(6))")[0]
        let connection = try fixture.connect()
        defer { connection.close() }
        let (_, due) = try reminderTime(connection, player)
        for bad in [nowMs() - 60_000, due + 1] {
            #expect(throws: StoreError.self) {
                try ProgressRepository(connection).setGoal(
                    player: player, GoalDraft(kind: .games, bank: nil, target: 9, reminder: .at(ms: bad)))
            }
        }
        let goals = try ProgressRepository(connection).goals(player: player)
        #expect(goals.count == 1 && goals[0]["target"] == 2 && goals[0]["remind_at"] == .null)
    }

    /// Every instance runs the reminder job: two at the same moment send each reminder once.
    @Test func twoInstancesAtOnceSendEachReminderOnce() async throws {
        let fixture = try StoreFixture(workers: 2)
        let players = try await fixture.players(6, prefix: "r\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        var latest: Int64 = 0
        for player in players {
            let (at, _) = try reminderTime(connection, player)
            _ = try ProgressRepository(connection).setGoal(
                player: player, GoalDraft(kind: .games, bank: nil, target: 2, reminder: .at(ms: at)))
            latest = max(latest, at)
        }
        let at = latest
        let sent = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await fixture.pool.run { db in try ProgressRepository(db).sendReminders(nowMs: at, outbox: Outbox()) }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(sent == players.count)
        for player in players { #expect(try reminders(connection, player).count == 1) }
    }

    /// A reached goal has nothing to remind of, nor a goal whose week ended while no instance
    /// ran: both are marked, and nothing is sent.
    @Test func aReachedGoalOrAnEndedWeekSendsNoReminder() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "r\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        let (at, due) = try reminderTime(connection, players[0])
        _ = try ProgressRepository(connection).setGoal(
            player: players[0], GoalDraft(kind: .games, bank: nil, target: 2, reminder: .at(ms: at)))
        #expect(try ProgressRepository(connection).sendReminders(nowMs: due, outbox: Outbox()) == 0)
        let (other, _) = try reminderTime(connection, players[1])
        _ = try ProgressRepository(connection).setGoal(
            player: players[1], GoalDraft(kind: .games, bank: nil, target: 2, reminder: .at(ms: other)))
        try connection.query("UPDATE weekly_goals SET reached_at = now() WHERE player_id = \(players[1])::uuid")
        #expect(try ProgressRepository(connection).sendReminders(nowMs: other, outbox: Outbox()) == 0)
        for player in players {
            #expect(try reminders(connection, player).isEmpty)
            #expect(try ProgressRepository(connection).goals(player: player)[0]["reminded"] == true)
        }
    }

    @Test func notesAndColoursPerBankArePrivateAndKeepWhatIsNotSent() async throws {
        let fixture = try StoreFixture(workers: 1)
        let players = try await fixture.players(2, prefix: "n\(UUID().uuidString.prefix(6))")
        let connection = try fixture.connect()
        defer { connection.close() }
        let prefs = BankPrefsRepository(connection)
        let first = try prefs.set(player: players[0], BankPrefDraft(bank: "world-capitals", note: "Canberra, not Sydney", color: .keep))
        #expect(first["note"] == "Canberra, not Sydney" && first["color"] == .null)
        let colored = try prefs.set(player: players[0], BankPrefDraft(bank: "world-capitals", note: nil, color: .set("#3366cc")))
        #expect(colored["note"] == "Canberra, not Sydney" && colored["color"] == "#3366cc")
        let reset = try prefs.set(player: players[0], BankPrefDraft(bank: "world-capitals", note: "", color: .reset))
        #expect(reset["note"] == "" && reset["color"] == .null)
        _ = try prefs.set(player: players[0], BankPrefDraft(bank: "general-science", note: "Noble gases", color: .set("#aa0000")))
        let mine = try prefs.list(player: players[0])
        // world-capitals' note and colour were both cleared: nothing to list.
        #expect(mine.map { $0["bank"] } == ["general-science"])
        #expect(try prefs.list(player: players[1]).isEmpty)
        #expect(throws: StoreError(.unknownBank)) {
            try prefs.set(player: players[1], BankPrefDraft(bank: "no-such-bank", note: "x", color: .keep))
        }
        // The table itself refuses what the decoder lets through by mistake.
        #expect(throws: PGError.self) {
            try connection.query("""
                INSERT INTO player_banks (player_id, bank_id, color) SELECT \(players[1])::uuid, id, 'red' FROM banks LIMIT 1
                """)
        }
    }
}
