/// A forward-only reader of JSON bytes that builds nothing: callers walk the
/// objects and arrays they care about and skip every other value.
///
/// The bots read a handful of fields from every frame (some 750-byte duel
/// records among them); building a full `JSONValue` tree for that allocated a
/// String per key and value and was the largest part of their CPU time.
/// This reader is lenient where the bots do not care (it does not validate
/// UTF-8 or escapes) and strict about structure: malformed input returns false
/// or nil, never crashes or loops.
struct JSONScanner {
    private let bytes: UnsafeRawBufferPointer
    private(set) var index = 0

    /// Deepest nesting walked or skipped (as in DuelCore's parser).
    static let maxDepth = 32

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var atEnd: Bool {
        mutating get {
            skipSpace()
            return index >= bytes.count
        }
    }

    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// The next non-space byte, not consumed.
    mutating func peek() -> UInt8? {
        skipSpace()
        return index < bytes.count ? bytes[index] : nil
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    /// A string's raw bytes between its quotes (escapes left as written).
    mutating func string() -> UnsafeRawBufferPointer? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                defer { index += 1 }
                return UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return nil
    }

    /// A number; nil (with the number consumed) when it has a fraction or exponent or does
    /// not fit, and nil (not consumed) when the next value is not a number.
    mutating func integer() -> Int? {
        guard let first = peek(), first == UInt8(ascii: "-") || isDigit(first) else { return nil }
        let negative = first == UInt8(ascii: "-")
        if negative { index += 1 }
        var value = 0
        var fits = true
        var digits = 0
        while index < bytes.count, isDigit(bytes[index]) {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
            if overflow1 || overflow2 { fits = false }
            value = sum
            digits += 1
            index += 1
        }
        var integral = digits > 0
        // A fraction or an exponent: consume it, but this is not an integer for the bots.
        while index < bytes.count, isNumberTail(bytes[index]) {
            integral = false
            index += 1
        }
        guard integral, fits else { return nil }
        return negative ? -value : value
    }

    /// `true` or `false`; nil (not consumed) for anything else.
    mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Consumes `null` if it is next.
    mutating func null() -> Bool {
        literal("null")
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        guard peek() != nil, index + word.utf8CodeUnitCount <= bytes.count else { return false }
        for offset in 0..<word.utf8CodeUnitCount where bytes[index + offset] != word.utf8Start[offset] {
            return false
        }
        index += word.utf8CodeUnitCount
        return true
    }

    /// Skips one value of any kind.
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard depth < Self.maxDepth, let next = peek() else { return false }
        switch next {
        case UInt8(ascii: "{"): return object(depth: depth) { key, scanner in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): return array(depth: depth) { scanner in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
        case UInt8(ascii: "n"): return null()
        default:
            let start = index
            _ = integer()
            return index > start
        }
    }

    /// Walks an object: `member` gets each key and must consume its value (false stops the walk).
    mutating func object(
        depth: Int = 0, _ member: (_ key: UnsafeRawBufferPointer, _ scanner: inout JSONScanner) -> Bool
    ) -> Bool {
        guard depth < Self.maxDepth, consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = string(), consume(UInt8(ascii: ":")), member(key, &self) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// Walks an array: `element` must consume each element (false stops the walk).
    mutating func array(depth: Int = 0, _ element: (_ scanner: inout JSONScanner) -> Bool) -> Bool {
        guard depth < Self.maxDepth, consume(UInt8(ascii: "[")) else { return false }
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            guard element(&self) else { return false }
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]"))
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func isNumberTail(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }
}

extension UnsafeRawBufferPointer {
    /// Whether these bytes spell `text` (keys and enum-like values of the protocol).
    func equals(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        for offset in 0..<count where self[offset] != text.utf8Start[offset] { return false }
        return true
    }

    /// FNV-1a: ids (players, duels) compared by a 64-bit hash instead of as Strings.
    var fnv1a: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in self {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }
}
