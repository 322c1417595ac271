/// A JSON value with object keys kept in order, so messages read in a stable order.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The value of `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// An array's element, nil when out of range or not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// A whole number, also from a double with no fraction (`3.0`).
    public var integer: Int64? {
        switch self {
        case .int(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e15: Int64(value)
        default: nil
        }
    }

    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

/// A JSON object: ordered key-value pairs; on duplicate keys the last one wins for lookups.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public private(set) var pairs: [(key: String, value: JSONValue)]

    public init(_ pairs: [(String, JSONValue)] = []) {
        self.pairs = pairs.map { (key: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }

    public subscript(key: String) -> JSONValue? {
        get { pairs.last { $0.key == key }?.value }
        set {
            pairs.removeAll { $0.key == key }
            if let newValue { pairs.append((key: key, value: newValue)) }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
