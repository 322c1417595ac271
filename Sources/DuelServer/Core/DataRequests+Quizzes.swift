import DuelCore
import DuelStore

/// The quiz ops (issue 13): authoring, the catalog, libraries, votes and quiz reports. Each is
/// one database job; the store checks ownership, caps and the authoring rate.
extension DataRequests {
    func quizRequest(_ connection: Connection, _ ref: RequestRef?, _ request: ClientRequest) {
        let player = connection.player!
        let perMinute = configuration.social.authoringPerMinute
        let reportsPerHour = configuration.social.reportsPerHour
        answer(connection, ref) { db, outbox in
            let quizzes = QuizRepository(db)
            switch request {
            case .quizCreate(let fields):
                return ["quiz": try quizzes.createQuiz(owner: player, fields, perMinute: perMinute).json]
            case .quizUpdate(let quiz, let fields):
                return ["quiz": try quizzes.updateQuiz(owner: player, slug: quiz, fields, perMinute: perMinute).json]
            case .quizDelete(let quiz):
                try quizzes.deleteQuiz(owner: player, slug: quiz, perMinute: perMinute)
                return [:]
            case .quizPublish(let quiz):
                return ["quiz": try quizzes.publishQuiz(owner: player, slug: quiz, publish: true, perMinute: perMinute, outbox: outbox).json]
            case .quizUnpublish(let quiz):
                return ["quiz": try quizzes.publishQuiz(owner: player, slug: quiz, publish: false, perMinute: perMinute, outbox: outbox).json]
            case .quizQuestions(let quiz):
                let (found, questions) = try quizzes.quizQuestions(owner: player, slug: quiz)
                return ["quiz": found.json, "questions": .array(questions)]
            case .quizInfo(let quiz):
                return ["quiz": try quizzes.quizInfo(slug: quiz, viewer: player).json]
            case .myQuizzes:
                return ["quizzes": .array(try quizzes.myQuizzes(owner: player).map(\.json))]
            case .questionAdd(let quiz, let draft):
                return ["question": try quizzes.addQuestion(owner: player, slug: quiz, draft, perMinute: perMinute)]
            case .questionUpdate(let id, let draft):
                return ["question": try quizzes.updateQuestion(owner: player, questionID: id, draft, perMinute: perMinute)]
            case .questionDelete(let id):
                try quizzes.deleteQuestion(owner: player, questionID: id, perMinute: perMinute)
                return [:]
            case .catalog(let query):
                let page = try quizzes.catalog(query, viewer: player)
                return ["quizzes": .array(page.quizzes.map(\.json)), "next_cursor": page.next.map { .string(String($0)) } ?? .null]
            case .quizSave(let quiz):
                return ["quiz": try quizzes.saveQuiz(slug: quiz, player: player).json]
            case .quizUnsave(let quiz):
                try quizzes.unsaveQuiz(slug: quiz, player: player)
                return [:]
            case .library:
                return ["quizzes": .array(try quizzes.library(player: player).map(\.json))]
            case .rate(let target, let value):
                guard case .object(let counts) = try quizzes.rate(target, value: value, player: player) else { return [:] }
                return counts
            case .reportQuiz(let quiz, let reason):
                try ReportRepository(db).reportQuiz(slug: quiz, player: player, reason: reason, perHour: reportsPerHour)
                return [:]
            default:
                throw StoreError(.internal, "not a quiz op: \(request.op)")
            }
        }
    }
}
