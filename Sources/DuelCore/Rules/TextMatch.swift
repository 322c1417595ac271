import Foundation

/// How a typed answer is compared with a question's accepted texts (issue 13).
public enum TextMatching: String, Sendable, Codable, Equatable, CaseIterable {
    /// The same text, apart from surrounding white space.
    case exact
    /// The same text in any letter case, apart from surrounding white space.
    case caseInsensitive = "case_insensitive"
    /// ``TextMatch/roughlyEqual(_:_:)``: a student who misspells a word in a fast game is still
    /// right when they know the answer.
    case rough
}

/// Comparing typed answers: the folding and the edit distance behind ``TextMatching/rough``.
public enum TextMatch {
    /// Whether `given` matches `accepted` under `matching`.
    public static func matches(_ given: String, _ accepted: String, _ matching: TextMatching) -> Bool {
        switch matching {
        case .exact: return trimmed(given) == trimmed(accepted)
        case .caseInsensitive: return trimmed(given).lowercased() == trimmed(accepted).lowercased()
        case .rough: return roughlyEqual(given, accepted)
        }
    }

    /// Rough match: both sides folded (``fold(_:)``), then equal, or within an edit distance
    /// (Damerau-Levenshtein: insert, delete, substitute, swap two neighbours) of 1 when the
    /// accepted text has 4-7 letters and digits, and of 2 from 8 on. Three or fewer: exact
    /// after folding, since one edit turns a short word into another ("cat", "car").
    public static func roughlyEqual(_ given: String, _ accepted: String) -> Bool {
        let a = Array(fold(given).unicodeScalars), b = Array(fold(accepted).unicodeScalars)
        guard !b.isEmpty else { return false }
        if a == b { return true }
        let letters = b.reduce(0) { $0 + ($1 == " " ? 0 : 1) }
        let allowed = letters >= 8 ? 2 : letters >= 4 ? 1 : 0
        guard allowed > 0, abs(a.count - b.count) <= allowed else { return false }
        return distance(a, b) <= allowed
    }

    /// Letter case, diacritics ("é" is "e"), punctuation and symbols, and surrounding and
    /// repeated white space do not count: "  Café-au-lait! " folds to "cafe au lait".
    public static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.decomposedStringWithCanonicalMapping.lowercased().unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                continue  // the accents a decomposition split off
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .decimalNumber, .letterNumber, .otherNumber:
                if pendingSpace && !out.isEmpty { out.append(" ") }
                pendingSpace = false
                out.append(scalar)
            default:
                // White space, punctuation and symbols separate words ("new-york" is "new york").
                pendingSpace = true
            }
        }
        return String(out)
    }

    /// The unrestricted Damerau-Levenshtein distance (Lowrance-Wagner), so "ca" → "abc" is 2.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        let n = a.count, m = b.count
        if n == 0 { return m }
        if m == 0 { return n }
        let infinity = n + m
        // (n + 2) × (m + 2) table with a sentinel row and column.
        var table = [Int](repeating: 0, count: (n + 2) * (m + 2))
        func at(_ i: Int, _ j: Int) -> Int { i * (m + 2) + j }
        table[at(0, 0)] = infinity
        for i in 0...n { table[at(i + 1, 0)] = infinity; table[at(i + 1, 1)] = i }
        for j in 0...m { table[at(0, j + 1)] = infinity; table[at(1, j + 1)] = j }
        var lastRow: [Unicode.Scalar: Int] = [:]
        for i in 1...n {
            var lastMatchColumn = 0
            for j in 1...m {
                let i1 = lastRow[b[j - 1]] ?? 0
                let j1 = lastMatchColumn
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                if cost == 0 { lastMatchColumn = j }
                table[at(i + 1, j + 1)] = min(
                    table[at(i, j)] + cost,
                    table[at(i + 1, j)] + 1,
                    table[at(i, j + 1)] + 1,
                    table[at(i1, j1)] + (i - i1 - 1) + 1 + (j - j1 - 1))
            }
            lastRow[a[i - 1]] = i
        }
        return table[at(n + 1, m + 1)]
    }

    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
