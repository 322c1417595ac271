/// Every `op` a client may send, as on the wire: the one list of op names. The decoder
/// switches over it (so a name here without a decoder does not compile), the router switches
/// over the decoded ``ClientRequest`` (exhaustive too), and a test checks that PROTOCOL.md and
/// the JSON schema document each.
public enum Op: String, CaseIterable, Sendable {
    case signup
    case login
    case auth
    case logout
    case banks
    case queue
    case cancel
    case answer
    case forfeit
    case resume
    case leaderboard
    case profile
    case history
    case mistakes
    case report
    case practice
    case recorded
    case roomCreate = "room_create"
    case roomJoin = "room_join"
    case roomLeave = "room_leave"
    case roomStart = "room_start"
    case challenge
    case challengeAccept = "challenge_accept"
    case challengeDecline = "challenge_decline"
    case challenges
    case rematch
    case quizCreate = "quiz_create"
    case quizUpdate = "quiz_update"
    case quizDelete = "quiz_delete"
    case quizPublish = "quiz_publish"
    case quizUnpublish = "quiz_unpublish"
    case quizQuestions = "quiz_questions"
    case quiz
    case myQuizzes = "my_quizzes"
    case questionAdd = "question_add"
    case questionUpdate = "question_update"
    case questionDelete = "question_delete"
    case catalog
    case quizSave = "quiz_save"
    case quizUnsave = "quiz_unsave"
    case library
    case rate
    case profileUpdate = "profile_update"
    case goalSet = "goal_set"
    case goals
    case notifications
    case notificationsSeen = "notifications_seen"
    case ratingHistory = "rating_history"
    case stats
    case achievements
    case bankPrefSet = "bank_pref_set"
    case bankPrefs = "bank_prefs"

    /// Accepted before authentication.
    public var isAnonymous: Bool {
        switch self {
        case .signup, .login, .auth, .banks: true
        default: false
        }
    }
}
