/// A room's invite code: six characters of an alphabet without look-alikes.
public enum RoomCode {
    /// Digits and capitals without look-alikes (no 0/O, 1/I/L, 2/Z, 5/S, 8/B), so that a
    /// code read aloud or off a screen is typed right.
    public static let alphabet = Array("34679ACDEFGHJKMNPQRTUVWXY")
    public static let length = 6

    public static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// A code as people type it: case and surrounding spaces do not matter.
    public static func normalized(_ text: String) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).uppercased()
    }
}
