import DuelCore

/// A quiz a player made (issue 13): a bank with an owner, as `my_quizzes`, `catalog`, `quiz`
/// and `library` show it.
public struct Quiz: Sendable, Equatable {
    public let slug: String
    let bankID: Int
    public let title: String
    public let description: String
    public let theme: String
    public let difficulty: String
    public let owner: (id: PlayerID, username: String)
    public let publishedAtMs: Int64?
    public let inMatchmaking: Bool
    public let questions: Int
    public let plays: Int
    public let saves: Int
    public let likes: Int
    public let dislikes: Int
    /// Why an operator took it out of the catalog, if one did: shown to the owner only.
    public let unpublishedReason: String?
    /// The viewer's vote: 1, -1 or 0.
    public let yourVote: Int
    public let saved: Bool

    public static func == (lhs: Quiz, rhs: Quiz) -> Bool {
        lhs.slug == rhs.slug && lhs.title == rhs.title && lhs.publishedAtMs == rhs.publishedAtMs
            && lhs.questions == rhs.questions && lhs.likes == rhs.likes && lhs.dislikes == rhs.dislikes
            && lhs.saves == rhs.saves && lhs.plays == rhs.plays && lhs.yourVote == rhs.yourVote && lhs.saved == rhs.saved
    }

    public var json: JSONValue {
        .object([
            "quiz": .string(slug),
            "title": .string(title),
            "description": .string(description),
            "theme": .string(theme),
            "difficulty": .string(difficulty),
            "owner": .object(["id": .string(owner.id), "username": .string(owner.username)]),
            "published": .bool(publishedAtMs != nil),
            "published_at": publishedAtMs.map { .string(Timestamp.iso8601(ms: $0)) } ?? .null,
            "in_matchmaking": .bool(inMatchmaking),
            "questions": .number(questions),
            "plays": .number(plays),
            "saves": .number(saves),
            "likes": .number(likes),
            "dislikes": .number(dislikes),
            "unpublished_reason": unpublishedReason.map { .string($0) } ?? .null,
            "your_vote": .number(yourVote),
            "saved": .bool(saved),
        ])
    }

    /// The columns ``init(row:)`` reads, for the quizzes `b` (banks) owned by `p` (players),
    /// as `viewer` sees them (their vote, whether saved). The viewer is an authenticated
    /// player's id, written in only once it reads as a UUID.
    static func columns(viewer id: PlayerID) -> String {
        let viewer = UUIDText.isValid(id) ? "'\(id)'" : "NULL"
        return """
        b.id, b.slug, b.title, b.description, b.theme, b.difficulty, p.id::text AS owner_id,
        p.username AS owner_name, \(SQLTime.ms("b.published_at")) AS published_ms,
        b.matchmaking AND b.published_at IS NOT NULL AS in_matchmaking,
        (SELECT count(*) FROM questions q WHERE q.bank_id = b.id AND q.active) AS questions,
        b.plays, b.saves, b.likes, b.dislikes,
        CASE WHEN b.owner_id = \(viewer) THEN b.unpublished_reason END AS unpublished_reason,
        coalesce((SELECT v.value FROM quiz_votes v WHERE v.bank_id = b.id AND v.player_id = \(viewer)::uuid), 0) AS vote,
        EXISTS (SELECT 1 FROM quiz_saves s WHERE s.bank_id = b.id AND s.player_id = \(viewer)::uuid) AS saved
        """
    }

    init(row: PGRow) throws {
        slug = try row.string("slug")
        bankID = try row.int("id")
        title = try row.string("title")
        description = try row.string("description")
        theme = try row.string("theme")
        difficulty = try row.string("difficulty")
        owner = (try row.string("owner_id"), try row.string("owner_name"))
        publishedAtMs = try row.optionalInt64("published_ms")
        inMatchmaking = try row.bool("in_matchmaking")
        questions = try row.int("questions")
        plays = try row.int("plays")
        saves = try row.int("saves")
        likes = try row.int("likes")
        dislikes = try row.int("dislikes")
        unpublishedReason = row.optionalString("unpublished_reason")
        yourVote = try row.int("vote")
        saved = try row.bool("saved")
    }
}

extension DuelQuestion {
    /// A question as its quiz's owner sees it (`quiz_questions`, `question_add`): the key in
    /// the reveal's field names, and its likes and dislikes.
    func ownerJSON(likes: Int, dislikes: Int) -> JSONValue {
        var fields: JSONObject = [
            "question_id": .int(id), "type": .string(type.rawValue), "prompt": .string(prompt),
            "choices": .array(choices.map { .string($0) }),
        ]
        for (name, value) in key.json.pairs { fields[name] = value }
        fields["likes"] = .number(likes)
        fields["dislikes"] = .number(dislikes)
        return .object(fields)
    }
}
