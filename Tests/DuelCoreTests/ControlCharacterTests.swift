@testable import DuelCore
import Testing

/// The decoder's control-character test compares values; it must agree with Unicode's own
/// general category on every scalar.
@Suite struct ControlCharacterTests {
    @Test func theValueTestIsUnicodesCategoryCc() {
        var checked = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(scalar.isControlCharacter == (scalar.properties.generalCategory == .control), "U+\(String(value, radix: 16))")
            checked += 1
        }
        #expect(checked == 0x110000 - 0x800)
    }
}
