/// Messages the server sends, encoded as PROTOCOL.md shows them.
public enum ServerMessage {
    /// `{"op":"reply","ref":…,"ok":true,"data":{…}}`
    public static func reply(ref: RequestRef?, data: JSONObject = [:]) -> String {
        JSONValue.object([
            "op": "reply",
            "ref": ref?.json ?? .null,
            "ok": true,
            "data": .object(data),
        ]).serialized
    }

    /// `{"op":"error","ref":…,"code":"…","message":"…"}`
    public static func error(ref: RequestRef?, _ error: ProtocolError) -> String {
        JSONValue.object([
            "op": "error",
            "ref": ref?.json ?? .null,
            "code": .string(error.code.rawValue),
            "message": .string(error.message),
        ]).serialized
    }

    /// A duel event in the row-change envelope.
    ///
    /// `recordJSON` is the record's JSON text as stored with the event: it is
    /// spliced in unchanged, so a stored event costs no re-encoding per recipient.
    public static func duelEvent(
        kind: DuelEventKind, duelID: String, seq: Int, atMs: Int64, recordJSON: String, serverTimeMs: Int64
    ) -> String {
        // One buffer, written once: every event of every round goes through here on the lws
        // thread, and a `+` per field made a string per field (bench/NOTES.md, item 41).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(192 + recordJSON.utf8.count)
        bytes.append(contentsOf: #"{"op":"event","event":"#.utf8)
        JSONValue.writeString(kind.rawValue, into: &bytes)
        bytes.append(contentsOf: #","table":"duels","type":"#.utf8)
        JSONValue.writeString(kind.changeType, into: &bytes)
        bytes.append(contentsOf: #","duel_id":"#.utf8)
        JSONValue.writeString(duelID, into: &bytes)
        bytes.append(contentsOf: #","seq":"#.utf8)
        JSONValue.writeInteger(Int64(seq), into: &bytes)
        bytes.append(contentsOf: #","commit_timestamp":""#.utf8)
        Timestamp.writeISO8601(ms: atMs, into: &bytes)
        bytes.append(contentsOf: #"","server_time_ms":"#.utf8)
        JSONValue.writeInteger(serverTimeMs, into: &bytes)
        bytes.append(contentsOf: #","record":"#.utf8)
        bytes.append(contentsOf: recordJSON.utf8)
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same, from an engine event.
    public static func duelEvent(_ event: DuelEvent, serverTimeMs: Int64) -> String {
        duelEvent(
            kind: event.kind, duelID: event.record.id, seq: event.seq, atMs: event.atMs,
            recordJSON: event.record.serialized, serverTimeMs: serverTimeMs)
    }

    /// A row-change event of a table other than `duels` and `match_queue`: `room`
    /// (`rooms`), `challenge` (`challenges`) and `rematch` (`rematches`). No `seq`: these
    /// records are whole states, and a later one replaces an earlier one.
    public static func rowEvent(
        _ event: String, table: String, type: String, atMs: Int64, record: JSONValue, serverTimeMs: Int64
    ) -> String {
        JSONValue.object([
            "op": "event",
            "event": .string(event),
            "table": .string(table),
            "type": .string(type),
            "commit_timestamp": .string(Timestamp.iso8601(ms: atMs)),
            "server_time_ms": .int(serverTimeMs),
            "record": record,
        ]).serialized
    }

    /// The `queued` event: the player's row was inserted into `match_queue`.
    public static func queued(player: PlayerID, bank: String, queuedAtMs: Int64, serverTimeMs: Int64) -> String {
        JSONValue.object([
            "op": "event",
            "event": "queued",
            "table": "match_queue",
            "type": "INSERT",
            "commit_timestamp": .string(Timestamp.iso8601(ms: queuedAtMs)),
            "server_time_ms": .int(serverTimeMs),
            "record": .object([
                "player": .string(player),
                "bank": .string(bank),
                "queued_at": .string(Timestamp.iso8601(ms: queuedAtMs)),
            ]),
        ]).serialized
    }
}

/// Millisecond Unix times as ISO 8601 UTC text, without Foundation's formatters.
public enum Timestamp {
    /// `2026-11-21T22:40:01.123Z`
    public static func iso8601(ms: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        writeISO8601(ms: ms, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The same text, appended to `output`.
    static func writeISO8601(ms: Int64, into output: inout [UInt8]) {
        let (daysSinceEpoch, msOfDay) = floorDivMod(ms, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: daysSinceEpoch)
        pad(year, 4, into: &output)
        output.append(UInt8(ascii: "-"))
        pad(month, 2, into: &output)
        output.append(UInt8(ascii: "-"))
        pad(day, 2, into: &output)
        output.append(UInt8(ascii: "T"))
        pad(msOfDay / 3_600_000, 2, into: &output)
        output.append(UInt8(ascii: ":"))
        pad(msOfDay / 60_000 % 60, 2, into: &output)
        output.append(UInt8(ascii: ":"))
        pad(msOfDay / 1_000 % 60, 2, into: &output)
        output.append(UInt8(ascii: "."))
        pad(msOfDay % 1_000, 3, into: &output)
        output.append(UInt8(ascii: "Z"))
    }

    private static func floorDivMod(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian calendar).
    private static func civilDate(daysSinceEpoch: Int64) -> (Int64, Int64, Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `value` in decimal, with zeros in front to `width` digits.
    private static func pad(_ value: Int64, _ width: Int, into output: inout [UInt8]) {
        var digits = 1
        var rest = value / 10
        while rest != 0 { digits += 1; rest /= 10 }
        if value >= 0, digits < width { output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits)) }
        JSONValue.writeInteger(value, into: &output)
    }
}
