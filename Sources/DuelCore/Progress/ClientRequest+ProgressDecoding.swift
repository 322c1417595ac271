/// Decoding of the progress ops (issue 14).
extension ClientRequest {
    /// The progress op `op` (the main decoder sends only those here).
    static func decodeProgressOp(_ op: Op, _ fields: Fields) throws(ProtocolError) -> ClientRequest {
        switch op {
        case .profileUpdate: return .profileUpdate(timeZone: try fields.timeZone())
        case .goalSet:
            guard let kind = GoalDraft.Kind(rawValue: try fields.string("kind", maxLength: 32)) else {
                throw .badField("kind", "must be wins, games, correct_answers or mistakes_learned")
            }
            return .goalSet(GoalDraft(kind: kind, bank: try fields.optionalIdentifier("bank", maxLength: 128),
                                      target: try fields.int("target", in: GoalDraft.targets),
                                      reminder: try fields.reminder()))
        case .goals: return .goals
        case .notifications:
            return .notifications(limit: try fields.int("limit", in: 1...100, default: 20),
                                  before: fields.has("before") ? try fields.int64("before") : nil)
        case .notificationsSeen: return .notificationsSeen(upTo: try fields.int64("up_to"))
        case .ratingHistory:
            return .ratingHistory(bank: try fields.identifier("bank", maxLength: 128),
                                  limit: try fields.int("limit", in: 1...500, default: 100))
        case .stats: return .stats(bank: try fields.optionalIdentifier("bank", maxLength: 128))
        case .achievements: return .achievements
        case .bankPrefSet:
            let bank = try fields.identifier("bank", maxLength: 128)
            let note = try fields.optionalString("note", maxLength: BankPrefDraft.maxNoteLength)
            guard (note?.utf8.count ?? 0) <= BankPrefDraft.maxNoteBytes else {
                throw .badField("note", "is too long: at most \(BankPrefDraft.maxNoteLength) characters and \(BankPrefDraft.maxNoteBytes) bytes")
            }
            let color = try fields.bankColor()
            guard note != nil || color != .keep else { throw .badField("note", "send note, color or both") }
            return .bankPrefSet(BankPrefDraft(bank: bank, note: note, color: color))
        case .bankPrefs: return .bankPrefs
        default: throw ProtocolError(.internal, "not a progress op: \(op.rawValue)")
        }
    }
}

extension Fields {
    /// An IANA time zone name as a client sends it (`Europe/Paris`, `UTC`); whether Postgres
    /// knows it is the store's check (`bad_request` naming `time_zone` too).
    func timeZone() throws(ProtocolError) -> String {
        let name = try string("time_zone", maxLength: 64)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "/_-+".unicodeScalars.contains($0)
        }) else { throw .badField("time_zone", "must be an IANA time zone name, such as Europe/Paris") }
        return name
    }

    /// `goal_set`'s `remind_at`: absent keeps the goal's reminder, null clears it, and an ISO
    /// 8601 time with a zone sets it (whether it lies before the goal is due is the store's
    /// check, which names the field too).
    func reminder() throws(ProtocolError) -> GoalDraft.Reminder {
        guard let value = object["remind_at"] else { return .keep }
        if value == .null { return .clear }
        guard case .string(let text) = value, let ms = Timestamp.milliseconds(iso8601: text) else {
            throw .badField("remind_at", "must be an ISO 8601 time with a zone, such as 2026-11-30T18:00:00Z, or null")
        }
        return .at(ms: ms)
    }

    /// `bank_pref_set`'s `color`: absent keeps it, null gives the bank its own colour back, and
    /// `#rrggbb` (either case) sets it.
    func bankColor() throws(ProtocolError) -> BankPrefDraft.Color {
        guard let value = object["color"] else { return .keep }
        if value == .null { return .reset }
        guard case .string(let text) = value, text.utf8.count == 7, text.first == "#",
              text.utf8.dropFirst().allSatisfy({ ("0"..."9").contains(Unicode.Scalar($0))
                  || ("a"..."f").contains(Unicode.Scalar($0)) || ("A"..."F").contains(Unicode.Scalar($0)) })
        else { throw .badField("color", "must be a colour such as #3366cc, or null") }
        return .set(text.lowercased())
    }
}
