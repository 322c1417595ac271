/// What a player may write (issue 13). Lengths count Unicode code points, as Postgres's
/// `char_length` in the tables' checks does.
public enum QuizLimits {
    public static let quizzesPerPlayer = 50
    public static let questionsPerQuiz = 200
    public static let title = 1...80
    public static let description = 0...500
    public static let theme = 1...40
    public static let prompt = 1...300
    public static let choice = 1...100
    public static let accepted = 1...20
    public static let search = 0...100
    /// Authoring writes (create, update, delete, publish, questions) per player and minute.
    public static let authoringPerMinute = 30
    public static let difficulties: Set<String> = ["easy", "medium", "hard", "mixed"]
}
