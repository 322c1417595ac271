import DuelCore
import Testing

/// Question types and typed answers (issue 13 item 1): the rough-match table and every type's verdict.
@Suite struct AnswerKeyTests {
    /// (typed, accepted, right under rough matching, why)
    static let rough: [(String, String, Bool, String)] = [
        ("Paris", "Paris", true, "same"),
        ("paris", "Paris", true, "case"),
        ("  PARIS ", "Paris", true, "case and surrounding spaces"),
        ("Paris.", "Paris", true, "punctuation"),
        ("Bogota", "Bogotá", true, "accent dropped"),
        ("Bogotá", "Bogota", true, "accent added"),
        ("Reykjavik", "Reykjavík", true, "accent on a long word"),
        ("Sao Paulo", "São Paulo", true, "tilde"),
        ("Zurich", "Zürich", true, "umlaut"),
        ("new-york", "New York", true, "hyphen for a space"),
        ("new   york", "New York", true, "repeated spaces"),
        ("Pari", "Paris", true, "one letter missing (5 letters)"),
        ("Parris", "Paris", true, "one letter extra"),
        ("Parus", "Paris", true, "one letter wrong"),
        ("Prais", "Paris", true, "neighbours swapped"),
        ("Lodnon", "London", true, "swap in a 6-letter word"),
        ("Berne", "Bern", true, "one extra on 4 letters"),
        ("Canbera", "Canberra", true, "one missing on 8 letters"),
        ("Canbeira", "Canberra", true, "two edits on 8 letters"),
        ("Copenhagn", "Copenhagen", true, "one missing on 10 letters"),
        ("Kopenhagn", "Copenhagen", true, "two edits on 10 letters"),
        ("Ouagadougu", "Ouagadougou", true, "long name, one missing"),
        ("Prias", "Paris", false, "two edits on 5 letters"),
        ("Pxrxs", "Paris", false, "two substitutions on 5 letters"),
        ("Canbxxxa", "Canberra", false, "three edits on 8 letters"),
        ("Rome", "Roma", true, "one edit on 4 letters"),
        ("Rime", "Roma", false, "two edits on 4 letters"),
        ("Oslo", "Lima", false, "another word"),
        ("cat", "car", false, "short words are exact only"),
        ("Ra", "Rb", false, "two letters exact only"),
        ("Rb", "rb", true, "short word, case only"),
        ("Fe", "fe.", true, "short word, punctuation only"),
        ("Hg", "Ag", false, "chemical symbols must be exact"),
        ("", "Paris", false, "nothing typed"),
        ("Paris", "", false, "an empty accepted text accepts nothing"),
        ("Parisienne", "Paris", false, "much longer"),
        ("1789", "1789", true, "digits"),
        ("1798", "1789", true, "swapped digits on 4 characters"),
        ("Nouakchot", "Nouakchott", true, "one missing letter in a long name"),
        ("Straße", "strasse", false, "ß is not folded to ss (two edits on 7)"),
    ]

    @Test(arguments: rough.indices) func roughMatchTable(_ index: Int) {
        let (typed, accepted, right, why) = Self.rough[index]
        #expect(TextMatch.roughlyEqual(typed, accepted) == right, "\(why): \(typed) vs \(accepted)")
    }

    @Test func theTableHasAtLeastThirtyCases() {
        #expect(Self.rough.count >= 30)
    }

    @Test func exactAndCaseInsensitiveMatching() {
        #expect(TextMatch.matches(" Paris ", "Paris", .exact))
        #expect(!TextMatch.matches("paris", "Paris", .exact))
        #expect(!TextMatch.matches("Bogota", "Bogotá", .exact))
        #expect(TextMatch.matches("PARIS", "paris", .caseInsensitive))
        #expect(!TextMatch.matches("Pari", "Paris", .caseInsensitive))
    }

    @Test func damerauLevenshteinCountsASwapAsOneEdit() {
        #expect(TextMatch.fold("  Café-au-lait! ") == "cafe au lait")
        #expect(TextMatch.roughlyEqual("abcedfgh", "abcdefgh"))  // one swap
        #expect(TextMatch.roughlyEqual("bacedfgh", "abcdefgh"))  // two swaps, 8 letters
        #expect(!TextMatch.roughlyEqual("bacedfhg", "abcdefgh"))  // three swaps
    }

    @Test func everyTypeJudgesItsOwnKindOfAnswer() {
        #expect(AnswerKey.single(correct: 2).judge(.choice(2), options: 4) == true)
        #expect(AnswerKey.single(correct: 2).judge(.choice(1), options: 4) == false)
        #expect(AnswerKey.single(correct: 2).judge(.choice(4), options: 4) == nil)
        #expect(AnswerKey.single(correct: 2).judge(.text("2"), options: 4) == nil)

        let multiple = AnswerKey.multiple(correct: [0, 2])
        #expect(multiple.judge(.choices([2, 0]), options: 4) == true)
        #expect(multiple.judge(.choices([0]), options: 4) == false)
        #expect(multiple.judge(.choices([0, 2, 3]), options: 4) == false)
        #expect(multiple.judge(.choices([]), options: 4) == nil)
        #expect(multiple.judge(.choices([0, 0]), options: 4) == nil)
        #expect(multiple.judge(.choices([5]), options: 4) == nil)

        #expect(AnswerKey.boolean(correct: true).judge(.choice(0), options: 2) == true)
        #expect(AnswerKey.boolean(correct: false).judge(.choice(0), options: 2) == false)
        #expect(AnswerKey.boolean(correct: false).judge(.choice(2), options: 2) == nil)

        let text = AnswerKey.text(accepted: ["Mount Everest", "Everest"], matching: .rough)
        #expect(text.judge(.text("everst"), options: 0) == true)
        #expect(text.judge(.text("K2"), options: 0) == false)
        #expect(text.judge(.text(String(repeating: "a", count: 201)), options: 0) == nil)

        let number = AnswerKey.number(correct: 3.14, tolerance: 0.01)
        #expect(number.judge(.number(3.15), options: 0) == true)
        #expect(number.judge(.number(3.2), options: 0) == false)
        #expect(number.judge(.number(.nan), options: 0) == nil)
        #expect(number.judge(.choice(3), options: 0) == nil)
        #expect(AnswerKey.number(correct: 42, tolerance: 0).judge(.number(42), options: 0) == true)
    }
}
