import DuelCore

/// A player's own note and colour per bank (issue 27, item 7; migration 021's `player_banks`).
/// Private: only the player reads or writes theirs, and a bank they cannot play answers as a
/// missing one (`unknown_bank`), so a note cannot probe a private quiz. Runs on the connection
/// it is given and keeps no state.
public struct BankPrefsRepository {
    let db: PGConnection

    public init(_ db: PGConnection) {
        self.db = db
    }

    /// `bank_pref_set`: changes what the draft names and returns the bank's note and colour.
    public func set(player: PlayerID, _ draft: BankPrefDraft) throws -> JSONValue {
        guard let bank = try db.query("""
            SELECT id FROM banks b WHERE slug = \(draft.bank) AND \(unsafeRaw: BankSummary.playable("b", by: player))
            """).first else { throw StoreError(.unknownBank) }
        var color: String?
        if case .set(let chosen) = draft.color { color = chosen }
        let keepNote = draft.note == nil, keepColor = draft.color == .keep
        let bankID = try bank.int("id")
        // CASE rather than coalesce in the SET, and the row read back by a statement of its own:
        // Citus refuses a function call in an upsert's SET and in a RETURNING.
        return try db.transaction { db in
            try db.query("""
                INSERT INTO player_banks AS pb (player_id, bank_id, note, color)
                VALUES (\(player)::uuid, \(bankID), \(draft.note ?? ""), \(color))
                ON CONFLICT (player_id, bank_id) DO UPDATE
                   SET note = CASE WHEN \(keepNote) THEN pb.note ELSE excluded.note END,
                       color = CASE WHEN \(keepColor) THEN pb.color ELSE excluded.color END,
                       updated_at = excluded.updated_at
                """)
            let row = try db.query("""
                SELECT note, color, \(unsafeRaw: SQLTime.ms("updated_at")) AS updated_ms
                  FROM player_banks WHERE player_id = \(player)::uuid AND bank_id = \(bankID)
                """)[0]
            return try Self.json(bank: draft.bank, row)
        }
    }

    /// `bank_prefs`: the player's notes and colours, for the banks they can still play, by slug
    /// (a bank whose note and colour were both cleared has nothing to list).
    public func list(player: PlayerID) throws -> [JSONValue] {
        try db.query("""
            SELECT b.slug, pb.note, pb.color, \(unsafeRaw: SQLTime.ms("pb.updated_at")) AS updated_ms
              FROM player_banks pb JOIN banks b ON b.id = pb.bank_id
             WHERE pb.player_id = \(player)::uuid AND \(unsafeRaw: BankSummary.playable("b", by: player))
               AND (pb.note <> '' OR pb.color IS NOT NULL)
             ORDER BY b.slug
            """).map { try Self.json(bank: $0.string("slug"), $0) }
    }

    private static func json(bank: String, _ row: PGRow) throws -> JSONValue {
        .object([
            "bank": .string(bank), "note": .string(try row.string("note")),
            "color": row.optionalString("color").map { .string($0) } ?? .null,
            "updated_at": .string(Timestamp.iso8601(ms: try row.int64("updated_ms"))),
        ])
    }
}
