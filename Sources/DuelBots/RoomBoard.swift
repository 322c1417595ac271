import Synchronization

/// Where the bots of one room find its code: the host posts it once `room_create`
/// replies; the other members look it up until it is there (`--room-size`).
final class RoomBoard: Sendable {
    private let codes = Mutex<[Int: String]>([:])

    func post(group: Int, code: String) {
        codes.withLock { $0[group] = code }
    }

    func code(group: Int) -> String? {
        codes.withLock { $0[group] }
    }
}
