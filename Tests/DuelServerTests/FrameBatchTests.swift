import Testing
@testable import DuelServer

/// The framing of several messages into one send (RFC 6455 §5.2 base framing).
@Suite struct FrameBatchTests {
    @Test func headersCarryEachLengthInItsSmallestForm() {
        var batch = FrameBatch(headroom: 16)
        batch.appendText(Array("hi".utf8))
        #expect(Array(batch.bytes[16...]) == [0x81, 2, 0x68, 0x69])
        for (length, header) in [(125, [0x81, 125]), (126, [0x81, 126, 0, 126]), (65_535, [0x81, 126, 0xFF, 0xFF]),
                                 (65_536, [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0])] as [(Int, [UInt8])] {
            batch.reset()
            batch.appendText([UInt8](repeating: 0x61, count: length))
            #expect(Array(batch.bytes[16..<(16 + header.count)]) == header)
            #expect(batch.count == header.count + length)
        }
    }

    @Test func framesFollowEachOtherAndResetKeepsTheHeadroom() {
        var batch = FrameBatch(headroom: 16)
        batch.appendText(Array("a".utf8))
        batch.appendText(Array("bc".utf8))
        #expect(batch.messages == 2)
        #expect(Array(batch.bytes[16...]) == [0x81, 1, 0x61, 0x81, 2, 0x62, 0x63])
        batch.reset()
        #expect(batch.count == 0 && batch.messages == 0 && batch.bytes.count == 16)
    }
}

/// The `sessions_ended` payload's hashes, decoded once per notification.
@Suite struct TokenHexTests {
    @Test func hexDecodesBothCasesAndRefusesAnythingElse() {
        #expect(Tokens.bytes(hex: "00ff7Fa0") == [0x00, 0xFF, 0x7F, 0xA0])
        #expect(Tokens.bytes(hex: "") == [])
        #expect(Tokens.bytes(hex: "abc") == nil)
        #expect(Tokens.bytes(hex: "zz") == nil)
        #expect(Tokens.bytes(hex: "0g") == nil)
    }
}
