/// A player's own note and colour for a bank, as `bank_pref_set` changes them (issue 27: the
/// learning diary's notes per bank and colour per bank). Private to the player.
public struct BankPrefDraft: Sendable, Equatable {
    public let bank: String
    /// The new note ("" clears it); nil keeps the note.
    public let note: String?
    public let color: Color

    public enum Color: Sendable, Equatable {
        /// No `color` field: unchanged.
        case keep
        /// `color: null`: the bank's own colour again.
        case reset
        /// `#rrggbb`, lower case.
        case set(String)
    }

    public init(bank: String, note: String?, color: Color) {
        self.bank = bank
        self.note = note
        self.color = color
    }

    /// A note is a few paragraphs, not a document: 1,000 characters, and 3,000 bytes of UTF-8 so
    /// that any script fits the server's 4,096-byte message (PROTOCOL.md, Transport) with room
    /// for the rest of the request (2,000 characters of Chinese did not).
    public static let maxNoteLength = 1_000
    public static let maxNoteBytes = 3_000
}
