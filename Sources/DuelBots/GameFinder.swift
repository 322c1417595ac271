import DuelCore

/// How a bot gets its next game: the ranked queue, a room (`--room-size`: the host creates
/// it and starts each game, the others join it once) or practice alone, and the share of
/// `--duels` it holds while it waits and plays (``DuelTally``).
///
/// It decides which request comes next and reads the room's replies and events; ``Bot``
/// sends the requests, keeps the phase and sets the timers. A value in its bot.
struct GameFinder {
    /// A request for a game outside the queue (`--room-size`).
    enum RoomRequest: Equatable {
        case practice, create, join(code: String), start, leave

        func json(ref: Int, bank: String) -> JSONValue {
            switch self {
            case .practice: .object(["op": "practice", "ref": .number(ref), "bank": .string(bank)])
            case .create: .object(["op": "room_create", "ref": .number(ref), "bank": .string(bank)])
            case .join(let code): .object(["op": "room_join", "ref": .number(ref), "code": .string(code)])
            case .start: .object(["op": "room_start", "ref": .number(ref)])
            case .leave: .object(["op": "room_leave", "ref": .number(ref)])
            }
        }
    }

    /// What to do for the next room game.
    enum RoomStep: Equatable {
        case send(RoomRequest)
        /// The host starts the game once every member is in (``takeStart()``).
        case startWhenFull
        /// A member waits for its host to post the room's code.
        case waitForCode
        /// A member already in the room waits for the host's next game.
        case waitForGame
    }

    let bank: String
    /// The bank as a JSON string, written into every `queue` request as it is.
    let bankJSON: [UInt8]
    /// Where the bot sits with `--room-size`; nil in the ranked queue.
    let seat: RoomSeat?
    private let tally: DuelTally
    private let rooms: RoomBoard
    /// This bot's share of the duel it waits for or plays, in halves (see ``DuelTally``).
    private var held = 0
    /// The room's code once known, and its member count from replies and `room` events.
    private(set) var roomCode: String?
    private var roomMembers = 0
    /// The host waits for every member before a start.
    private var startWanted = false

    init(index: Int, configuration: BotConfiguration, tally: DuelTally, rooms: RoomBoard) {
        bank = configuration.bank
        bankJSON = Array(JSONValue.string(configuration.bank).serialized.utf8)
        seat = configuration.roomSize.map { RoomSeat(index: index, roomSize: $0, bots: configuration.bots) }
        self.tally = tally
        self.rooms = rooms
    }

    private var isHost: Bool { seat?.isHost ?? false }

    // MARK: Shares of `--duels`

    /// Gives back the share held and takes one for the next game: half a duel in the queue,
    /// a whole one for a room's host or practice, none for a room's other members (they must
    /// be waiting whenever the host starts). False when the duels still needed are spoken for.
    mutating func reserveShare() -> Bool {
        tally.release(halves: held)
        let share = seat.map { $0.isHost ? 2 : 0 } ?? 1
        held = share == 0 || tally.reserve(halves: share) ? share : 0
        return held == share
    }

    /// Gives back the share held (the bot is done).
    mutating func releaseShare() {
        tally.release(halves: held)
        held = 0
    }

    // MARK: Rooms and practice

    /// The next step towards a room game (or practice game, in a room of one).
    mutating func nextRoomStep() -> RoomStep {
        guard let seat else { return .waitForGame }
        if seat.members == 1 { return .send(.practice) }
        if seat.isHost {
            if roomCode == nil { return .send(.create) }
            startWanted = true
            return .startWhenFull
        }
        guard roomCode == nil else { return .waitForGame }
        guard let code = rooms.code(group: seat.group) else { return .waitForCode }
        roomCode = code
        return .send(.join(code: code))
    }

    /// True once when the host wants to start and every member is in (it then sends `room_start`).
    mutating func takeStart() -> Bool {
        guard startWanted, let seat, roomMembers >= seat.members else { return false }
        startWanted = false
        return true
    }

    /// A room request was refused or had no reply: a member forgets the code (it may be
    /// stale, and is looked up again from the board).
    mutating func roomRefused() {
        if !isHost { roomCode = nil }
    }

    /// Before trying again after a refusal: a host with a room wants to start again.
    mutating func willRetry() {
        if waitsToStart { startWanted = true }
    }

    /// The host has a room: a retry is a start (else it is ``nextRoomStep()``).
    var waitsToStart: Bool { isHost && roomCode != nil }

    /// Reads an accepted room reply; true when the host just learned its room's code (posted
    /// for the members; it then starts once they are in).
    mutating func read(roomReply bytes: UnsafeRawBufferPointer) -> Bool {
        guard let reply = try? JSONParser.parse(bytes), let room = reply["data"]?["room"] else { return false }
        if case .array(let members)? = room["members"] { roomMembers = max(roomMembers, members.count) }
        guard let seat, seat.isHost, roomCode == nil, let code = room["code"]?.string else { return false }
        roomCode = code
        rooms.post(group: seat.group, code: code)
        startWanted = true
        return true
    }

    /// Reads an event that is not a duel's; true when it was a `room` event and this bot
    /// hosts (it may start now that someone joined).
    mutating func read(roomEvent bytes: UnsafeRawBufferPointer) -> Bool {
        guard let event = try? JSONParser.parse(bytes), event["event"] == "room",
              case .array(let members)? = event["record"]?["members"] else { return false }
        roomMembers = members.count
        return isHost
    }
}

/// Where bot `index` sits with `--room-size`: in room `index / roomSize`, whose first bot
/// hosts; the fleet's last room may be short.
struct RoomSeat: Equatable {
    let group: Int
    let isHost: Bool
    /// Bots in this room.
    let members: Int

    init(index: Int, roomSize: Int, bots: Int) {
        group = index / roomSize
        isHost = index % roomSize == 0
        members = min(roomSize, bots - group * roomSize)
    }
}
