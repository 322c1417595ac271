/// An answer sent by one player for one question of one duel (ids hashed), for the
/// opponent's `answered` latency.
struct AnswerKey: Hashable {
    let duel: UInt64
    let index: Int
    let player: UInt64
}
