extension JSONValue {
    /// Compact JSON text (no insignificant white space), keys in their stored order.
    public var serialized: String {
        var output = ""
        output.reserveCapacity(256)
        write(into: &output)
        return output
    }

    public func write(into output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value): output += value.isFinite ? String(value) : "null"
        case .string(let value): JSONValue.writeString(value, into: &output)
        case .array(let items):
            output += "["
            for (offset, item) in items.enumerated() {
                if offset > 0 { output += "," }
                item.write(into: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (offset, pair) in object.pairs.enumerated() {
                if offset > 0 { output += "," }
                JSONValue.writeString(pair.key, into: &output)
                output += ":"
                pair.value.write(into: &output)
            }
            output += "}"
        }
    }

    static func writeString(_ value: String, into output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
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
