/// The `duel_events` NOTIFY payload: which duels got which events, from which instance.
///
///     <instance> <duel>:<first seq>:<last seq> <duel>:<first seq>:<last seq>:<player>:<player> ...
///
/// A new duel's entry also names its players, so an instance that holds neither can
/// ignore the duel without a database read (and without remembering it).
/// One batch announces all its duels at once; Postgres caps a payload below
/// 8000 bytes, so a big batch is split over several payloads (``payloads(origin:ranges:)``).
public struct DuelNotification: Sendable, Equatable {
    public struct Range: Sendable, Equatable {
        public let duelID: String
        public let firstSeq: Int
        public let lastSeq: Int
        /// The duel's players, for a new duel's range only (empty otherwise).
        public let players: [String]

        public init(duelID: String, firstSeq: Int, lastSeq: Int, players: [String] = []) {
            self.duelID = duelID
            self.firstSeq = firstSeq
            self.lastSeq = lastSeq
            self.players = players
        }
    }

    /// The instance that committed the events ("" when not a server's, e.g. a test's).
    public let origin: String
    public let ranges: [Range]

    /// Postgres refuses payloads of 8000 bytes or more.
    static let maxPayloadBytes = 7_900

    /// Payloads announcing `ranges`, each under the size Postgres accepts.
    public static func payloads(origin: String, ranges: [Range]) -> [String] {
        var payloads: [String] = []
        var current = origin.isEmpty ? "-" : origin
        var entries = 0
        for range in ranges {
            var entry = " \(range.duelID):\(range.firstSeq):\(range.lastSeq)"
            for player in range.players { entry += ":" + player }
            if entries > 0 && current.utf8.count + entry.utf8.count > maxPayloadBytes {
                payloads.append(current)
                current = origin.isEmpty ? "-" : origin
                entries = 0
            }
            current += entry
            entries += 1
        }
        if entries > 0 { payloads.append(current) }
        return payloads
    }

    /// Parses a payload; nil for one of another shape.
    public init?(payload: String) {
        var parts = payload.split(separator: " ")
        guard !parts.isEmpty else { return nil }
        let origin = parts.removeFirst()
        var ranges: [Range] = []
        ranges.reserveCapacity(parts.count)
        for part in parts {
            let fields = part.split(separator: ":")
            // A new duel names one to four players (practice has one, rooms up to four).
            guard (3...7).contains(fields.count), let first = Int(fields[1]), let last = Int(fields[2]),
                  first <= last else { return nil }
            ranges.append(Range(duelID: String(fields[0]), firstSeq: first, lastSeq: last,
                                players: fields.dropFirst(3).map(String.init)))
        }
        self.origin = origin == "-" ? "" : String(origin)
        self.ranges = ranges
    }
}
