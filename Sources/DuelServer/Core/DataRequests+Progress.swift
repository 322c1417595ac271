import DuelCore
import DuelStore

/// The progress ops (issue 14): time zone, weekly goals, notifications, the rating chart,
/// statistics and achievements. Each is one database job.
extension DataRequests {
    func progressRequest(_ connection: Connection, _ ref: RequestRef?, _ request: ClientRequest) {
        let player = connection.player!
        answer(connection, ref) { db in
            switch request {
            case .profileUpdate(let timeZone):
                try ProgressRepository(db).setTimeZone(player: player, timeZone)
                guard let profile = try PlayerRepository(db).profile(player: player) else { throw StoreError(.unauthorized) }
                return ["player": profile.json, "time_zone": .string(timeZone)]
            case .goalSet(let goal):
                return ["goals": .array(try ProgressRepository(db).setGoal(player: player, goal))]
            case .goals:
                return ["goals": .array(try ProgressRepository(db).goals(player: player))]
            case .notifications(let limit, let before):
                return try ProgressRepository(db).notifications(player: player, limit: limit, before: before)
            case .notificationsSeen(let upTo):
                return ["unseen": .number(try ProgressRepository(db).notificationsSeen(player: player, upTo: upTo))]
            case .ratingHistory(let bank, let limit):
                return ["bank": .string(bank), "points": .array(try ProgressRepository(db).ratingHistory(player: player, bank: bank, limit: limit))]
            case .stats(let bank):
                return try ProgressRepository(db).stats(player: player, bank: bank)
            case .achievements:
                return ["achievements": .array(try ProgressRepository(db).achievements(player: player))]
            default:
                throw StoreError(.internal, "not a progress op: \(request.op)")
            }
        }
    }
}
