/// Rule 6: points for an answer.
public enum Scoring {
    /// Points for an answer arriving at `atMs` to a question whose deadline is `deadlineMs`.
    ///
    /// A correct answer earns `basePoints` plus `bonusPerSecond` for every started second left
    /// before the deadline, so 110 to 200 with the defaults. An answer at the deadline's exact
    /// millisecond is still inside the last second and earns one second of bonus, which keeps
    /// every correct answer in that documented range. Wrong answers earn 0.
    public static func points(
        correct: Bool, atMs: Int64, deadlineMs: Int64, configuration: DuelConfiguration
    ) -> Int {
        guard correct else { return 0 }
        let remaining = max(0, deadlineMs - atMs)
        let startedSeconds = max(1, (remaining + 999) / 1_000)
        return configuration.basePoints + configuration.bonusPerSecond * Int(startedSeconds)
    }
}
