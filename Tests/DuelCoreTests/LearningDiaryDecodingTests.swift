import Testing
@testable import DuelCore

/// The learning diary's fields (issue 27): a goal's `remind_at` and a bank's note and colour.
@Suite struct LearningDiaryDecodingTests {
    func decode(_ text: String) -> Result<RequestEnvelope, RequestDecodingFailure> {
        ClientRequest.decode(Array(text.utf8))
    }

    func request(_ text: String) -> ClientRequest? {
        if case .success(let envelope) = decode(text) { return envelope.request }
        return nil
    }

    /// The code and the field a refusal names.
    func failure(_ text: String) -> String? {
        guard case .failure(let failure) = decode(text) else { return nil }
        return "\(failure.error.code.rawValue) \(failure.error.message.prefix { $0 != ":" })"
    }

    @Test func timestampsAreReadWithTheirZone() {
        let ms: Int64 = 1_795_677_601_123 // 2026-11-26T07:20:01.123Z
        #expect(Timestamp.milliseconds(iso8601: Timestamp.iso8601(ms: ms)) == ms)
        #expect(Timestamp.milliseconds(iso8601: "2026-11-26T08:20:01.123+01:00") == ms)
        #expect(Timestamp.milliseconds(iso8601: "2026-11-25T21:50:01.1234567-09:30") == ms)
        #expect(Timestamp.milliseconds(iso8601: "2026-11-26T07:20Z") == ms - 1_123)
        #expect(Timestamp.milliseconds(iso8601: "1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.milliseconds(iso8601: "2028-02-29T00:00:00Z") != nil)
        for bad in ["2026-11-26T07:20:01", "2026-11-26", "2027-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
                    "2026-11-26T24:00:00Z", "2026-11-26T07:20:01.Z", "2026-11-26T07:20:01Zjunk", "1969-12-31T23:59:59Z",
                    "2026-11-26T07:20:01+0100", " 2026-11-26T07:20:01Z", ""] {
            #expect(Timestamp.milliseconds(iso8601: bad) == nil, "\(bad)")
        }
        // Every day of four years round-trips.
        for day in stride(from: Int64(19_000), to: 20_461, by: 1) {
            let at = day * 86_400_000 + 45_296_789
            #expect(Timestamp.milliseconds(iso8601: Timestamp.iso8601(ms: at)) == at)
        }
    }

    @Test func aGoalsReminderIsKeptClearedOrSet() {
        #expect(request(#"{"op":"goal_set","kind":"games","target":3}"#)
            == .goalSet(GoalDraft(kind: .games, bank: nil, target: 3, reminder: .keep)))
        #expect(request(#"{"op":"goal_set","kind":"games","target":3,"remind_at":null}"#)
            == .goalSet(GoalDraft(kind: .games, bank: nil, target: 3, reminder: .clear)))
        #expect(request(#"{"op":"goal_set","kind":"games","target":3,"remind_at":"1970-01-01T00:00:01Z"}"#)
            == .goalSet(GoalDraft(kind: .games, bank: nil, target: 3, reminder: .at(ms: 1_000))))
        for bad in [#""tomorrow""#, "1795776001123", #""2026-11-26T07:20:01""#, "true"] {
            #expect(failure(#"{"op":"goal_set","kind":"games","target":3,"remind_at":\#(bad)}"#) == "bad_request remind_at")
        }
    }

    @Test func aBanksNoteAndColour() {
        #expect(request(##"{"op":"bank_pref_set","bank":"b","note":"n","color":"#33AAcc"}"##)
            == .bankPrefSet(BankPrefDraft(bank: "b", note: "n", color: .set("#33aacc"))))
        #expect(request(#"{"op":"bank_pref_set","bank":"b","color":null}"#)
            == .bankPrefSet(BankPrefDraft(bank: "b", note: nil, color: .reset)))
        #expect(request(#"{"op":"bank_prefs"}"#) == .bankPrefs)
        for bad in [#""red""#, ##""#12345""##, ##""#1234567""##, ##""#12345g""##, "3"] {
            #expect(failure(#"{"op":"bank_pref_set","bank":"b","color":\#(bad)}"#) == "bad_request color")
        }
        let long = String(repeating: "x", count: BankPrefDraft.maxNoteLength + 1)
        #expect(failure(#"{"op":"bank_pref_set","bank":"b","note":"\#(long)"}"#) == "bad_request note")
        #expect(failure(#"{"op":"bank_pref_set","note":"x"}"#) == "bad_request bank")
        // 1,000 characters of Chinese are 3,000 bytes: allowed; emoji beyond 3,000 bytes are not.
        let chinese = String(repeating: "记", count: BankPrefDraft.maxNoteLength)
        #expect(request(#"{"op":"bank_pref_set","bank":"b","note":"\#(chinese)"}"#) != nil)
        let emoji = String(repeating: "🦉", count: 751)
        #expect(failure(#"{"op":"bank_pref_set","bank":"b","note":"\#(emoji)"}"#) == "bad_request note")
        #expect(failure(#"{"op":"bank_pref_set","bank":"b"}"#) == "bad_request note")
        // Lengths are code points, as the database's CHECK counts them: 1,000 accented letters
        // written as letter + combining accent are 1,000 characters on screen but 2,000 code
        // points (and 3,000 bytes), which the database would refuse.
        let combining = String(repeating: "e\u{301}", count: BankPrefDraft.maxNoteLength)
        #expect(combining.count == BankPrefDraft.maxNoteLength && combining.utf8.count == BankPrefDraft.maxNoteBytes)
        #expect(failure(#"{"op":"bank_pref_set","bank":"b","note":"\#(combining)"}"#) == "bad_request note")
    }
}
