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
        var text = #"{"op":"event","event":"# + JSONValue.string(kind.rawValue).serialized
        text += #","table":"duels","type":"# + JSONValue.string(kind.changeType).serialized
        text += #","duel_id":"# + JSONValue.string(duelID).serialized
        text += #","seq":"# + String(seq)
        text += #","commit_timestamp":"# + JSONValue.string(Timestamp.iso8601(ms: atMs)).serialized
        text += #","server_time_ms":"# + String(serverTimeMs)
        text += #","record":"# + recordJSON + "}"
        return text
    }

    /// The same, from an engine event.
    public static func duelEvent(_ event: DuelEvent, serverTimeMs: Int64) -> String {
        duelEvent(
            kind: event.kind, duelID: event.record.id, seq: event.seq, atMs: event.atMs,
            recordJSON: event.record.json.serialized, serverTimeMs: serverTimeMs)
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
        let (daysSinceEpoch, msOfDay) = floorDivMod(ms, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: daysSinceEpoch)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1_000 % 60
        let milli = msOfDay % 1_000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":"
            + pad(minute, 2) + ":" + pad(second, 2) + "." + pad(milli, 3) + "Z"
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

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
