import DuelStore

/// Counters and histograms for `/metrics` (Prometheus text format). Touched on the lws thread only.
/// One instance is shared by the server's parts (a class, so each counts into the same figures).
final class Metrics: @unchecked Sendable {
    var eventsSent = 0
    var messagesReceived = 0
    /// `answer` ops that reached the engine (accepted or refused by the rules).
    var answersHandled = 0
    var hashingRefused = 0
    var connectionsRefused = 0
    var errorsByCode: [String: Int] = [:]
    var answerLatency = Histogram(bucketsMs: [0.5, 1, 2, 5, 10, 20, 50, 100, 250, 1_000])
    var databaseLatency = Histogram(bucketsMs: [0.5, 1, 2, 5, 10, 20, 50, 100, 250, 1_000])
    /// From a duel deadline's due time (a question's close, a reveal's end, a settle) to its
    /// events handed to the sockets: what players see as a reveal's lateness, less the network.
    var deadlineLateness = Histogram(bucketsMs: [1, 2, 5, 10, 15, 20, 30, 50, 100, 250, 1_000])
    /// Refreshed from the database every few seconds.
    var queueLengths: [String: Int] = [:]
    var liveDuels = 0

    func render(connections: Int, playersOnline: Int, timers: Int, trackedDuels: Int, lanes: DuelLanes.Statistics) -> String {
        var out = ""
        func metric<Value>(_ name: String, _ type: String, _ help: String, _ values: [(labels: String, value: Value)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in values { out += "\(name)\(labels) \(value)\n" }
        }
        func gauge(_ name: String, _ help: String, _ value: Int) { metric(name, "gauge", help, [("", value)]) }
        func counter(_ name: String, _ help: String, _ value: Int) { metric(name, "counter", help, [("", value)]) }
        func labelled(_ label: String, _ values: [String: Int]) -> [(labels: String, value: Int)] {
            values.sorted { $0.key < $1.key }.map { ("{\(label)=\"\($0.key)\"}", $0.value) }
        }
        gauge("quizduel_connections", "Open WebSocket connections.", connections)
        gauge("quizduel_players_online", "Authenticated players with at least one connection.", playersOnline)
        // Read from the shared database: every instance reports the same value, so they carry
        // scope="cluster" and are aggregated with max, never sum (docs/OBSERVABILITY.md).
        metric("quizduel_live_duels", "gauge", "Duels not yet finished (all instances; aggregate with max).",
               [("{scope=\"cluster\"}", liveDuels)])
        gauge("quizduel_scheduled_timers", "Duel deadlines this instance will fire.", timers)
        gauge("quizduel_tracked_duels", "Live duels this instance keeps delivery bookkeeping for.", trackedDuels)
        metric("quizduel_queue_length", "gauge", "Players waiting per bank (all instances; aggregate with max).",
               queueLengths.sorted { $0.key < $1.key }.map { ("{scope=\"cluster\",bank=\"\($0.key)\"}", $0.value) })
        counter("quizduel_events_sent_total", "Duel events sent to clients.", eventsSent)
        counter("quizduel_messages_received_total", "Client messages received.", messagesReceived)
        metric("quizduel_errors_total", "counter", "Error replies by code.", labelled("code", errorsByCode))
        counter("quizduel_answers_total", "Answers the rules engine judged (accepted or refused).", answersHandled)
        counter("quizduel_connections_refused_total", "WebSocket upgrades refused by the server-wide connection cap.",
                connectionsRefused)
        counter("quizduel_hashing_refused_total", "Signups and logins refused because the password-hashing queue was full.",
                hashingRefused)
        counter("quizduel_lane_batches_total", "Transactions the duel lanes committed.", lanes.batches)
        counter("quizduel_lane_inputs_total",
                "Duel inputs the lanes applied (their mean per batch is the batching).", lanes.inputs)
        gauge("quizduel_lane_pending", "Duel inputs waiting for a lane.", lanes.pending)
        metric("quizduel_lane_busy_seconds_total", "counter",
               "Time the duel lanes spent on rounds (its rate near 1 per lane: saturated).",
               [("", Double(lanes.busyNs / 1_000) / 1e6)])
        out += answerLatency.render(name: "quizduel_answer_seconds", help: "Time from an answer's arrival to its reply.")
        out += databaseLatency.render(name: "quizduel_database_seconds", help: "Time of database jobs, queueing included.")
        out += deadlineLateness.render(name: "quizduel_deadline_lateness_seconds",
                                       help: "Time from a duel deadline's due moment to its events sent.")
        out += ProcessFigures.read().render()
        out += BuildInfo.render()
        return out
    }
}

/// A cumulative histogram with fixed buckets, in milliseconds, rendered in seconds.
struct Histogram {
    let bucketsMs: [Double]
    private(set) var counts: [Int]
    private(set) var sumMs = 0.0
    private(set) var count = 0

    init(bucketsMs: [Double]) {
        self.bucketsMs = bucketsMs
        counts = Array(repeating: 0, count: bucketsMs.count)
    }

    mutating func observe(ms: Double) {
        for index in bucketsMs.indices where ms <= bucketsMs[index] { counts[index] += 1 }
        sumMs += ms
        count += 1
    }

    func render(name: String, help: String) -> String {
        var out = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (index, bound) in bucketsMs.enumerated() {
            out += "\(name)_bucket{le=\"\(bound / 1_000)\"} \(counts[index])\n"
        }
        out += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sumMs / 1_000)\n\(name)_count \(count)\n"
        return out
    }
}
