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

    /// A note is a few paragraphs, not a document.
    public static let maxNoteLength = 2_000
}
