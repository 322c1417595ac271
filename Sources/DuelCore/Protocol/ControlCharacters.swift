extension Unicode.Scalar {
    /// Whether this is a control character (general category Cc: U+0000-U+001F and
    /// U+007F-U+009F), the one test of the decoder's identifier and reason fields. Compared by
    /// value: the Unicode property lookup it replaces was 1.3 % of the server's CPU at think
    /// time 0, run for every character of every identifier (bench/NOTES.md item 25).
    var isControlCharacter: Bool {
        value < 0x20 || (value >= 0x7F && value <= 0x9F)
    }
}
