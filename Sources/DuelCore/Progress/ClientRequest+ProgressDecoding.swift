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
                                      target: try fields.int("target", in: GoalDraft.targets)))
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
}
