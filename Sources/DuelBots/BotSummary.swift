import DuelCore

/// The few lines a person reads after a run (`duel-bots` prints them on stderr, beside the
/// JSON report on stdout), made from the report alone:
///
///     duels:      10 of 10 (3.9/s)
///     answers:    60 (23.4/s)
///     errors:     rate_limited 12, username_taken 2
///     violations: none
///     elapsed:    2.6 s, 20 bots
///     latency:    match p50 11.2 p99 40.1 ms; answer reply p50 1.2 p99 4.8 ms; ...
///     cpu:        63.8 µs per answer
///
/// `expected refusals:` (answers that lost a race, the stop crossing a match), `reconnects:`
/// and `unfinished:` (games the run's end cut off) appear only when there were some.
public enum BotSummary {
    public static func text(_ report: JSONValue) -> String {
        lines(report).joined(separator: "\n")
    }

    public static func lines(_ report: JSONValue) -> [String] {
        func int(_ key: String) -> Int64 { report[key]?.integer ?? 0 }
        func rate(_ key: String) -> String { report[key].flatMap(number).map(format) ?? "0" }
        var lines: [String] = []
        let target = report["duels_target"]?.integer.map { " of \($0)" } ?? ""
        var past = ""
        if int("duels_past_target") > 0 { past = ", \(int("duels_past_target")) more completed past the target" }
        lines.append("duels:      \(int("duels"))\(target) (\(rate("duels_per_second"))/s)\(past)")
        lines.append("answers:    \(int("answers")) (\(rate("answers_per_second"))/s)")
        lines.append("errors:     \(byCode(report["errors"]))")
        if case .object(let refusals)? = report["expected_refusals"], !refusals.pairs.isEmpty {
            lines.append("expected refusals: \(byCode(report["expected_refusals"]))")
        }
        lines.append("violations: \(byCode(report["violations"]))")
        let seconds = report["seconds"].flatMap(number).map(format) ?? "?"
        lines.append("elapsed:    \(seconds) s, \(int("bots")) bots")
        if int("reconnects") > 0 { lines.append("reconnects: \(int("reconnects"))") }
        if let unfinished = report["unfinished_at_end"]?["count"]?.integer, unfinished > 0 {
            lines.append("unfinished: \(unfinished) games still played at the end")
        }
        let latencies = [
            ("match", "time_to_match"), ("answer reply", "answer_to_reply"),
            ("opponent saw answer", "answer_to_opponent_answered"), ("reveal lateness", "reveal_lateness"),
        ].compactMap { label, key -> String? in
            guard let figures = report[key], (figures["count"]?.integer ?? 0) > 0 else { return nil }
            let p50 = figures["p50_ms"].flatMap(number).map(format) ?? "?"
            let p99 = figures["p99_ms"].flatMap(number).map(format) ?? "?"
            return "\(label) p50 \(p50) p99 \(p99) ms"
        }
        if !latencies.isEmpty { lines.append("latency:    " + latencies.joined(separator: "; ")) }
        if let cpu = report["cpu_us_per_answer"].flatMap(number) { lines.append("cpu:        \(format(cpu)) µs per answer") }
        return lines
    }

    /// `code n, code n` in the report's (sorted) order, or `none`.
    static func byCode(_ value: JSONValue?) -> String {
        guard case .object(let object)? = value, !object.pairs.isEmpty else { return "none" }
        return object.pairs.map { "\($0.key) \($0.value.integer ?? 0)" }.joined(separator: ", ")
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// At most two decimals, none when whole.
    private static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}
