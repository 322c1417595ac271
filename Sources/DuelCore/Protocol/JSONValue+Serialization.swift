extension JSONValue {
    /// Compact JSON text (no insignificant white space), keys in their stored order, written as
    /// UTF-8 bytes into one buffer. Event records do not come through here: they are written
    /// without a tree (``JSONWriter``, ``DuelRecord/write(into:)``), whose text is this one's.
    public var serialized: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        write(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public func write(into output: inout String) {
        output += serialized
    }

    func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): JSONValue.writeInteger(value, into: &output)
        case .double(let value): output.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): JSONValue.writeString(value, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (offset, item) in items.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                item.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (offset, pair) in object.pairs.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(pair.key, into: &output)
                output.append(UInt8(ascii: ":"))
                pair.value.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeInteger(_ value: Int64, into output: inout [UInt8]) {
        if value == 0 {
            output.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var magnitude = value.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { output.append(UInt8(ascii: "-")) }
            output.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Copies runs of plain bytes at once; escapes `"`, `\\` and control characters.
    /// Other bytes, multi-byte UTF-8 included, pass through (a Swift string is valid UTF-8).
    static func writeString(_ value: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: bytes[runStart..<index])
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): output.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): output.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): output.append(contentsOf: "\\t".utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    output.append(contentsOf: "\\u00".utf8)
                    output.append(hex[Int(byte >> 4)])
                    output.append(hex[Int(byte & 0x0F)])
                }
            }
            output.append(contentsOf: bytes[runStart...])
        }
        output.append(UInt8(ascii: "\""))
    }

    static func writeString(_ value: String, into output: inout String) {
        var bytes: [UInt8] = []
        writeString(value, into: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(floatLiteral value: Double) { self = .double(value) }

    /// An int value from any integer type.
    public static func number<I: BinaryInteger>(_ value: I) -> JSONValue { .int(Int64(value)) }

    /// `.string` or `.null`.
    public static func optional(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
}
