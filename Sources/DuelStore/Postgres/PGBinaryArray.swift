/// A one-dimensional array parameter in Postgres's binary format (`array_recv`), for the
/// statements a lane runs every round with a column per parameter (``DuelWrites``).
///
/// The text literal (``PGArray``) makes Postgres scan every byte of it for quotes and escapes
/// (`array_in`), then parse each element's text: at human pace that was 11.5 % of the lane's
/// backend, most of it the events' JSON, every quote of which the literal escapes (bench/NOTES.md,
/// item 41). In binary each element is its length and its bytes: text as is, a UUID as its 16
/// bytes, numbers in network byte order.
///
/// The parameter's type is the one its cast in the SQL names (`$1::uuid[]`), and `array_recv`
/// refuses an element type other than that one, so each builder is named after the SQL type it
/// must meet. An element the binary form cannot hold as Postgres would read its text (a UUID
/// not in the 36-character form, an `int` out of range) makes the whole parameter the text
/// literal instead, so Postgres reports it exactly as before.
public struct PGBinaryArray: PGEncodable {
    public let pgValue: PGValue

    private init(_ value: PGValue) { pgValue = value }

    /// `uuid[]`, from each UUID's text.
    public static func uuids(_ elements: [String?]) -> PGBinaryArray {
        guard elements.allSatisfy({ $0.map(UUIDText.isValid) ?? true }) else { return PGBinaryArray(PGArray(elements).pgValue) }
        return array(of: 2950, elements) { $1.appendUUID($0) }
    }

    /// `text[]`.
    public static func texts(_ elements: [String?]) -> PGBinaryArray {
        array(of: 25, elements) { text, writer in
            writer.append(length: text.utf8.count)
            writer.bytes.append(contentsOf: text.utf8)
        }
    }

    /// `int[]` (`int4`).
    public static func ints(_ elements: [Int?]) -> PGBinaryArray {
        guard elements.allSatisfy({ $0.map { Int32(exactly: $0) != nil } ?? true }) else {
            return PGBinaryArray(PGArray(elements.map { $0.map(String.init) }).pgValue)
        }
        return array(of: 23, elements) { value, writer in
            writer.append(length: 4)
            writer.append(UInt32(bitPattern: Int32(value)))
        }
    }

    /// `bigint[]` (`int8`).
    public static func bigints(_ elements: [Int64?]) -> PGBinaryArray {
        array(of: 20, elements) { value, writer in
            writer.append(length: 8)
            writer.append(UInt64(bitPattern: value))
        }
    }

    /// `float8[]`.
    public static func float8s(_ elements: [Double?]) -> PGBinaryArray {
        array(of: 701, elements) { value, writer in
            writer.append(length: 8)
            writer.append(value.bitPattern)
        }
    }

    /// `boolean[]`.
    public static func booleans(_ elements: [Bool?]) -> PGBinaryArray {
        array(of: 16, elements) { value, writer in
            writer.append(length: 1)
            writer.bytes.append(value ? 1 : 0)
        }
    }

    /// The array of `elements`, whose type has the OID `elementType`; `write` appends one
    /// element that is not NULL (its length, then its bytes).
    private static func array<Element>(
        of elementType: UInt32, _ elements: [Element?], _ write: (Element, inout Writer) -> Void
    ) -> PGBinaryArray {
        var writer = Writer(elementType: elementType, elements.count, hasNull: elements.contains { $0 == nil })
        for element in elements {
            if let element { write(element, &writer) } else { writer.appendNull() }
        }
        return PGBinaryArray(.binary(writer.bytes))
    }

    /// The header `array_recv` reads (dimensions, whether any element is NULL, the element
    /// type's OID, each dimension's length and lower bound), then the elements as they come.
    private struct Writer {
        var bytes: [UInt8] = []

        init(elementType: UInt32, _ count: Int, hasNull: Bool) {
            bytes.reserveCapacity(20 + count * 12)
            append(UInt32(count == 0 ? 0 : 1))
            append(UInt32(hasNull ? 1 : 0))
            append(elementType)
            if count > 0 {
                append(UInt32(count))
                append(UInt32(1))
            }
        }

        mutating func append(_ value: UInt32) {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func append(_ value: UInt64) {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func append(length: Int) { append(UInt32(length)) }

        /// A NULL element is a length of -1 and no bytes.
        mutating func appendNull() { append(UInt32(bitPattern: -1)) }

        /// The 16 bytes of `text`, a UUID's 36 characters (``UUIDText/isValid(_:)``, either case).
        mutating func appendUUID(_ text: String) {
            append(length: 16)
            var high: UInt8?
            for byte in text.utf8 where byte != UInt8(ascii: "-") {
                // A hex digit's value: digits, then either case of a-f (0x20 makes it lower).
                let digit = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10
                if let first = high {
                    bytes.append(first << 4 | digit)
                    high = nil
                } else {
                    high = digit
                }
            }
        }
    }
}
