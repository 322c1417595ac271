import DuelCore
import DuelStore

/// The progress ops (issue 14): time zone, weekly goals, notifications, the rating chart,
/// statistics and achievements; and the learning diary's notes and colours per bank (issue 27). Each is one database job.
extension DataRequests {
    func progressRequest(_ connection: Connection, _ ref: RequestRef?, _ request: ClientRequest) {
        let player = connection.player!
        answer(connection, ref) { db, _ in
            let progress = ProgressRepository(db)
            switch request {
            case .profileUpdate(let timeZone):
                try progress.setTimeZone(player: player, timeZone)
                guard let profile = try PlayerRepository(db).profile(player: player) else { throw StoreError(.unauthorized) }
                return ["player": profile.json, "time_zone": .string(timeZone)]
            case .goalSet(let goal):
                return ["goals": .array(try progress.setGoal(player: player, goal))]
            case .goals:
                return ["goals": .array(try progress.goals(player: player))]
            case .notifications(let limit, let before):
                return try progress.notifications(player: player, limit: limit, before: before)
            case .notificationsSeen(let upTo):
                return ["unseen": .number(try progress.notificationsSeen(player: player, upTo: upTo))]
            case .ratingHistory(let bank, let limit):
                return ["bank": .string(bank), "points": .array(try progress.ratingHistory(player: player, bank: bank, limit: limit))]
            case .stats(let bank):
                return try progress.stats(player: player, bank: bank)
            case .achievements:
                return ["achievements": .array(try progress.achievements(player: player))]
            case .bankPrefSet(let draft):
                return ["bank_pref": try BankPrefsRepository(db).set(player: player, draft)]
            case .bankPrefs:
                return ["bank_prefs": .array(try BankPrefsRepository(db).list(player: player))]
            default:
                throw StoreError(.internal, "not a progress op: \(request.op)")
            }
        }
    }
}
