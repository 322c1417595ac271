import Testing
@testable import DuelBots

/// The rule checks on frames alone, without sockets or a server (issue 22): what the bots
/// flag as a violation, and what they let pass.
@Suite struct DuelRulesTests {
    static func frame(_ text: String) -> BotFrame {
        var frame = BotFrame()
        let ok = Array(text.utf8).withUnsafeBytes { frame.read($0) }
        precondition(ok, text)
        return frame
    }

    static func hash(_ text: String) -> UInt64 {
        Array(text.utf8).withUnsafeBytes { $0.fnv1a }
    }

    /// An open question, as the server sends it: nothing of its answer in it.
    static func question(seq: Int, index: Int, extra: String = "", answers: String = "[]", reveal: String = "null") -> BotFrame {
        frame("""
            {"op":"event","event":"question","duel_id":"d","seq":\(seq),"record":{"state":"question",\
            "question_index":\(index),"question":{"index":\(index),"question_id":7,"choices":["a","b","c"]\(extra)},\
            "answers":\(answers),"reveal":\(reveal)}}
            """)
    }

    static func reveal(seq: Int, index: Int, points: String) -> BotFrame {
        frame("""
            {"op":"event","event":"reveal","duel_id":"d","seq":\(seq),"record":{"state":"reveal",\
            "question_index":\(index),"question":{"index":\(index),"question_id":7,"choices":["a","b","c"]},\
            "answers":[{"player":"a1","correct":true},{"player":"b2","correct":false}],\
            "reveal":{"question_index":\(index),"correct_choice":1,"choices":{"a1":1,"b2":0},"points":\(points)}}}
            """)
    }

    static func complete(seq: Int, scores: (a1: Int, b2: Int)) -> BotFrame {
        frame("""
            {"op":"event","event":"complete","duel_id":"d","seq":\(seq),"record":{"state":"finished",\
            "players":[{"id":"a1","score":\(scores.a1)},{"id":"b2","score":\(scores.b2)}],\
            "question":null,"answers":[],"reveal":null}}
            """)
    }

    @Test func aCleanQuestionPasses() {
        var rules = DuelRules()
        let breaks = rules.check(Self.question(seq: 2, index: 0), seq: 2)
        #expect(breaks.isEmpty)
        #expect(rules.lastSeq == 2)
    }

    /// Anything of the answer shown before its reveal is a leak: the correct choice inside
    /// the question, a player's pick, or the reveal itself while the question is open.
    @Test func aLeakBeforeTheRevealIsFlagged() {
        var rules = DuelRules()
        let correctChoice = rules.check(Self.question(seq: 2, index: 0, extra: #","correct_choice":1"#), seq: 2)
        #expect(correctChoice == RuleBreaks(leakedCorrectChoice: 1))
        let pick = rules.check(Self.question(seq: 3, index: 0, answers: #"[{"player":"a1","correct":false,"choice":2}]"#), seq: 3)
        #expect(pick == RuleBreaks(leakedChoice: 1))
        let early = rules.check(Self.question(seq: 4, index: 0, reveal: #"{"correct_choice":1}"#), seq: 4)
        #expect(early == RuleBreaks(earlyReveal: 1))
        // All three at once, in a countdown.
        let all = rules.check(Self.frame("""
            {"op":"event","event":"question","duel_id":"d","seq":5,"record":{"state":"countdown",\
            "question":{"index":1,"correct_choices":[0,2]},"answers":[{"player":"b2","correct":true,"text":"x"}],\
            "reveal":{"correct_choice":1}}}
            """), seq: 5)
        #expect(all == RuleBreaks(earlyReveal: 1, leakedCorrectChoice: 1, leakedChoice: 1))
        var names: [String] = []
        all.forEach { name, count in names.append("\(name) \(count)") }
        #expect(names == ["early_reveal 1", "leaked_correct_choice 1", "leaked_choice 1"])
    }

    /// A reveal shows the answer and every pick: that is what it is for.
    @Test func aRevealMayShowTheAnswer() {
        var rules = DuelRules()
        let breaks = rules.check(Self.reveal(seq: 2, index: 0, points: #"{"a1":160,"b2":0}"#), seq: 2)
        #expect(breaks.isEmpty)
    }

    @Test func aSeqGapIsFlagged() {
        var rules = DuelRules()
        let inOrder = rules.check(Self.question(seq: 2, index: 0), seq: 2)
        let skipped = rules.check(Self.question(seq: 4, index: 1), seq: 4)
        // Counted from the seq seen last: the next one in order passes again.
        let next = rules.check(Self.question(seq: 5, index: 1), seq: 5)
        // A seq seen again (a replay overlapping) is a gap too.
        let again = rules.check(Self.question(seq: 5, index: 1), seq: 5)
        #expect(inOrder.isEmpty)
        #expect(skipped == RuleBreaks(seqGap: 1))
        #expect(next.isEmpty)
        #expect(again == RuleBreaks(seqGap: 1))
    }

    /// The final scores equal the points the reveals gave, player by player.
    @Test func aCorrectScoreboardPasses() {
        var rules = DuelRules()
        let first = rules.check(Self.reveal(seq: 2, index: 0, points: #"{"a1":160,"b2":0}"#), seq: 2)
        let second = rules.check(Self.reveal(seq: 3, index: 1, points: #"{"a1":40,"b2":150}"#), seq: 3)
        let final = rules.check(Self.complete(seq: 4, scores: (200, 150)), seq: 4)
        #expect(first.isEmpty && second.isEmpty)
        #expect(final.isEmpty)
    }

    @Test func aWrongScoreboardIsFlaggedPerPlayer() {
        var rules = DuelRules()
        _ = rules.check(Self.reveal(seq: 2, index: 0, points: #"{"a1":160,"b2":0}"#), seq: 2)
        let wrong = rules.check(Self.complete(seq: 3, scores: (150, 10)), seq: 3)
        #expect(wrong == RuleBreaks(scoreMismatch: 2))
        // A player no reveal gave points to must end on 0.
        var fresh = DuelRules()
        let zeros = fresh.check(Self.complete(seq: 2, scores: (0, 0)), seq: 2)
        #expect(zeros.isEmpty)
        var other = DuelRules()
        let five = other.check(Self.complete(seq: 2, scores: (0, 5)), seq: 2)
        #expect(five == RuleBreaks(scoreMismatch: 1))
    }

    /// The stats count each rule by its report name, and nothing is locked for a clean frame.
    @Test func breaksAreCountedByName() {
        let stats = BotStats()
        stats.record(RuleBreaks())
        stats.record(RuleBreaks(seqGap: 1, scoreMismatch: 2))
        stats.record(RuleBreaks(seqGap: 1))
        let report = stats.report(configuration: BotConfiguration(), elapsed: 1)
        #expect(report["violations"] == .object(["score_mismatch": 2, "seq_gap": 2]))
    }
}
