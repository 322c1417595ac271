import Testing
@testable import DuelCore

@Suite struct IdentifierFieldTests {
    /// Issue 23, item 6: `bank` (and other identifiers) were read without the control-character
    /// check, and libpq cut "world-capitals\u0000junk" at the NUL. Every identifier field goes
    /// through one reader now.
    @Test(arguments: [
        #"{"op":"leaderboard","bank":"world-capitals\u0000junk"}"#,
        #"{"op":"practice","bank":"world-capitals\u0000junk"}"#,
        #"{"op":"queue","bank":"world-capitals\u0000"}"#,
        #"{"op":"room_create","bank":"world-capitals\u0007"}"#,
        #"{"op":"challenge","username":"ada","bank":"world-capitals\u0000x"}"#,
        #"{"op":"goal_set","kind":"games","target":1,"bank":"world-capitals\u0000x"}"#,
        #"{"op":"stats","bank":"world-capitals\u0000x"}"#,
        #"{"op":"rating_history","bank":"world-capitals\u0000x"}"#,
        #"{"op":"answer","duel_id":"d\u0000x","question_index":0,"choice":0}"#,
        #"{"op":"forfeit","duel_id":"d\u0000"}"#,
        #"{"op":"resume","duel_id":"d\u001b","after_seq":0}"#,
        #"{"op":"rematch","duel_id":"d\u0000"}"#,
        #"{"op":"challenge_accept","challenge_id":"c\u0000"}"#,
        #"{"op":"challenge_decline","challenge_id":"c\u0000"}"#,
        #"{"op":"profile","player":"p\u0000"}"#,
        #"{"op":"auth","token":"t\u0000"}"#,
        #"{"op":"login","username":"ada\u0000x","password":"x"}"#,
        #"{"op":"room_join","code":"ABC\u0000"}"#,
        #"{"op":"quiz","quiz":"quiz-1\u0000"}"#,
    ])
    func controlCharactersInIdentifiersAreRefused(frame: String) {
        guard case .failure(let refusal) = ClientRequest.decode(Array(frame.utf8)) else {
            Issue.record("decoded: \(frame)")
            return
        }
        #expect(refusal.error.code == .badRequest, "\(frame)")
        #expect(refusal.error.message.hasSuffix("must not contain control characters"), "\(refusal.error.message)")
    }
}
