/// Checks that text is a UUID before it reaches a `::uuid` cast, so a client's
/// malformed id is "unknown" rather than a database error.
public enum UUIDText {
    /// On the answer path: a scan of the UTF-8 bytes, no allocation.
    public static func isValid(_ text: String) -> Bool {
        var index = 0
        for byte in text.utf8 {
            switch index {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            case 36...:
                return false
            default:
                let isHex = (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
                guard isHex else { return false }
            }
            index += 1
        }
        return index == 36
    }
}
