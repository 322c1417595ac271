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
    /// Why an operator took it out of the catalog, if one did: shown to the owner only.
    public let unpublishedReason: String?
    public let counts: Counts
    public let viewer: Viewer

    /// How much the quiz holds and how it was received.
    public struct Counts: Sendable, Equatable {
        /// Its active questions.
        public let questions: Int
        public let plays: Int
        public let saves: Int
        public let likes: Int
        public let dislikes: Int

        init(row: PGRow) throws {
            questions = try row.int("questions")
            plays = try row.int("plays")
            saves = try row.int("saves")
            likes = try row.int("likes")
            dislikes = try row.int("dislikes")
        }
    }

    /// What the player it was read for did with it.
    public struct Viewer: Sendable, Equatable {
        /// Their vote: 1, -1 or 0.
        public let vote: Int
        public let saved: Bool
    }

    public static func == (lhs: Quiz, rhs: Quiz) -> Bool {
        lhs.slug == rhs.slug && lhs.title == rhs.title && lhs.publishedAtMs == rhs.publishedAtMs
            && lhs.counts == rhs.counts && lhs.viewer == rhs.viewer
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
            "questions": .number(counts.questions),
            "plays": .number(counts.plays),
            "saves": .number(counts.saves),
            "likes": .number(counts.likes),
            "dislikes": .number(counts.dislikes),
            "unpublished_reason": unpublishedReason.map { .string($0) } ?? .null,
            "your_vote": .number(viewer.vote),
            "saved": .bool(viewer.saved),
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
        unpublishedReason = row.optionalString("unpublished_reason")
        counts = try Counts(row: row)
        viewer = Viewer(vote: try row.int("vote"), saved: try row.bool("saved"))
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
