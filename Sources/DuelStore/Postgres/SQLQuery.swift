/// SQL text with `$n` placeholders and its bound values, built by interpolation:
///
///     let query: SQLQuery = "SELECT id FROM players WHERE lower(username) = lower(\(name))"
///
/// Interpolated values never become part of the SQL text; each one is a bind
/// parameter. Use ``SQLQuery/StringInterpolation/appendInterpolation(unsafeRaw:)``
/// only for trusted SQL fragments (never for input).
public struct SQLQuery: Sendable, ExpressibleByStringInterpolation {
    public var sql: String
    public var binds: [PGValue]

    public init(_ sql: String, binds: [PGValue] = []) {
        self.sql = sql
        self.binds = binds
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var binds: [PGValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + 4 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        public mutating func appendInterpolation(_ value: some PGEncodable) {
            binds.append(value.pgValue)
            sql += "$\(binds.count)"
        }

        public mutating func appendInterpolation(_ value: (some PGEncodable)?) {
            binds.append(value?.pgValue ?? .null)
            sql += "$\(binds.count)"
        }

        /// A binary array, so that a statement can name its builder alone: `\(.uuids(ids))::uuid[]`.
        public mutating func appendInterpolation(_ value: PGBinaryArray) {
            binds.append(value.pgValue)
            sql += "$\(binds.count)"
        }

        /// Trusted SQL text, inserted as is.
        public mutating func appendInterpolation(unsafeRaw text: String) {
            sql += text
        }
    }
}

/// A bind parameter: text (the type's input function reads it), or bytes in the type's binary
/// format (its receive function reads them; ``PGBinaryArray``).
public enum PGValue: Sendable, Equatable {
    case null
    case text(String)
    case binary([UInt8])
}

/// Values that can be bound as query parameters.
public protocol PGEncodable: Sendable {
    var pgValue: PGValue { get }
}

extension String: PGEncodable {
    public var pgValue: PGValue { .text(self) }
}

extension Int: PGEncodable {
    public var pgValue: PGValue { .text(String(self)) }
}

extension Int64: PGEncodable {
    public var pgValue: PGValue { .text(String(self)) }
}

extension Int32: PGEncodable {
    public var pgValue: PGValue { .text(String(self)) }
}

extension Double: PGEncodable {
    // Swift's description round-trips exactly; Postgres parses it as float8.
    public var pgValue: PGValue { .text(isFinite ? String(self) : (isNaN ? "NaN" : (self > 0 ? "Infinity" : "-Infinity"))) }
}

extension Bool: PGEncodable {
    public var pgValue: PGValue { .text(self ? "true" : "false") }
}

/// Raw bytes, bound as `bytea` in hex form.
public struct PGBytes: PGEncodable, Equatable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var pgValue: PGValue {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]("\\x".utf8)
        text.reserveCapacity(2 + 2 * bytes.count)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return .text(String(decoding: text, as: UTF8.self))
    }
}

/// A `text[]` or `bigint[]` literal, quoted so any element text is safe.
///
/// Built on the batch write path for every column of every row, so it works on
/// UTF-8 bytes: each element is double-quoted, with `"` and `\` escaped.
public struct PGArray: PGEncodable {
    public let elements: [String?]
    public init(_ elements: [String?]) { self.elements = elements }
    public init(_ elements: [Int64]) { self.elements = elements.map { String($0) } }

    public var pgValue: PGValue {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(2 + elements.reduce(0) { $0 + ($1?.utf8.count ?? 4) + 3 })
        bytes.append(UInt8(ascii: "{"))
        for (offset, element) in elements.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            guard let element else {
                bytes.append(contentsOf: "NULL".utf8)
                continue
            }
            bytes.append(UInt8(ascii: "\""))
            // Runs between the bytes to escape go in whole: a byte-at-a-time append of every
            // element was 4 % of the server's samples at human pace (the rounds' event JSON).
            var text = element
            text.withUTF8 { utf8 in
                var start = 0
                for index in utf8.indices where utf8[index] == UInt8(ascii: "\"") || utf8[index] == UInt8(ascii: "\\") {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                    bytes.append(UInt8(ascii: "\\"))
                    start = index
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            }
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "}"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }
}
