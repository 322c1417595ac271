/// An answer sent by one player for one question of one duel (ids hashed), for the
/// opponent's `answered` latency. Named apart from the engine's `AnswerKey` (a question's
/// key), which the bots' type of the same name used to shadow.
struct SentAnswerKey: Hashable {
    let duel: UInt64
    let index: Int
    let player: UInt64
}
