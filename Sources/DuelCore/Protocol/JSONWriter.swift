/// Compact JSON written straight into UTF-8 bytes: the text ``JSONValue/serialized`` gives for
/// the same values in the same order, without building the tree first.
///
/// For what the answer path writes per event (``DuelRecord/serialized``): building the record as
/// a ``JSONValue`` tree (an array of pairs per object, a string compare per key set) and then
/// serializing it was a sixth of the lane thread's CPU at human pace (bench/NOTES.md item 45).
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value or key follows another in its object or array.
    private var needsComma = false

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "{"))
        body(&self)
        close(UInt8(ascii: "}"))
    }

    public mutating func array(_ body: (inout JSONWriter) -> Void) {
        open(UInt8(ascii: "["))
        body(&self)
        close(UInt8(ascii: "]"))
    }

    /// An object's key; its value is the next thing written.
    public mutating func key(_ name: String) {
        separate()
        JSONValue.writeString(name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        JSONValue.writeString(value, into: &bytes)
        needsComma = true
    }

    public mutating func int<I: BinaryInteger>(_ value: I) {
        separate()
        JSONValue.writeInteger(Int64(value), into: &bytes)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// A value already held as a tree.
    public mutating func value(_ value: JSONValue) {
        separate()
        value.write(into: &bytes)
        needsComma = true
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
