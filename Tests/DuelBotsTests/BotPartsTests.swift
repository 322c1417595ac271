import DuelCore
import Testing
@testable import DuelBots

/// The bot's parts without a connection (issue 22): what the player decides on a duel's
/// events, and how the finder seats bots in rooms and holds shares of `--duels`.
@Suite struct BotPartsTests {
    static let me = DuelRulesTests.hash("a1")

    static func player(think: ClosedRange<Int> = 0...0, skip: Double = 0, stats: BotStats = BotStats()) -> BotPlayer {
        var style = PlayStyle()
        style.thinkMs = think
        style.skipRate = skip
        var player = BotPlayer(style: style, seats: 2, listsAcknowledged: false, stats: stats)
        player.signedIn(as: me)
        return player
    }

    @Test func aQuestionIsAnsweredOnceAfterItsThinkTime() throws {
        var player = Self.player()
        let serial = player.begin(duelID: Array("d".utf8), at: 0)
        #expect(player.plays(DuelRulesTests.hash("d")) && !player.plays(DuelRulesTests.hash("e")))
        guard case .answer(let planned) = player.event(DuelRulesTests.question(seq: 2, index: 0), seq: 2, receivedAt: 1) else {
            Issue.record("no answer")
            return
        }
        #expect(planned.serial == serial && planned.index == 0 && planned.options == 3 && planned.kind == .single)
        let chosen = try #require(player.choose(planned))
        #expect((0..<3).contains(chosen.choice) && chosen.duelID == Array("d".utf8))
        // The same question again (a later frame of it): not answered twice.
        guard case .none = player.event(DuelRulesTests.question(seq: 3, index: 0), seq: 3, receivedAt: 2) else {
            Issue.record("answered twice")
            return
        }
        var thinking = Self.player(think: 500...500)
        _ = thinking.begin(duelID: Array("d".utf8), at: 0)
        guard case .answerAfter(_, let micros) = thinking.event(DuelRulesTests.question(seq: 2, index: 0), seq: 2, receivedAt: 1)
        else {
            Issue.record("no planned answer")
            return
        }
        #expect(micros == 500_000)
    }

    @Test func skippedQuestionsAndStaleAnswersSendNothing() {
        var skipping = Self.player(skip: 1)
        _ = skipping.begin(duelID: Array("d".utf8), at: 0)
        guard case .none = skipping.event(DuelRulesTests.question(seq: 2, index: 0), seq: 2, receivedAt: 1) else {
            Issue.record("a skipped question answered")
            return
        }
        var player = Self.player()
        _ = player.begin(duelID: Array("d".utf8), at: 0)
        guard case .answer(let planned) = player.event(DuelRulesTests.question(seq: 2, index: 0), seq: 2, receivedAt: 1) else {
            Issue.record("no answer")
            return
        }
        player.leave()
        let afterTheDuel = player.choose(planned)
        _ = player.begin(duelID: Array("d".utf8), at: 0)
        let inTheNextDuel = player.choose(planned)
        #expect(afterTheDuel == nil, "the duel is over")
        #expect(inTheNextDuel == nil, "a think timer from the last duel")
    }

    /// The player has each event checked and counts what broke; `complete` counts the duel.
    @Test func violationsAndCompletionAreCounted() {
        let stats = BotStats()
        var player = Self.player(stats: stats)
        _ = player.begin(duelID: Array("d".utf8), at: 0)
        _ = player.event(DuelRulesTests.reveal(seq: 3, index: 0, points: #"{"a1":160,"b2":0}"#), seq: 3, receivedAt: 1)
        guard case .completed = player.event(DuelRulesTests.complete(seq: 4, scores: (160, 0)), seq: 4, receivedAt: 2) else {
            Issue.record("not completed")
            return
        }
        #expect(stats.duelsDone == 1)
        #expect(stats.report(configuration: BotConfiguration(), elapsed: 1)["violations"] == .object(["seq_gap": 1]))
        #expect(stats.state.withLock { $0.knowledge[7] } == 1, "the reveal taught the answer")
    }

    /// While a `resume` is on its way the duel's events are dropped (its replay follows).
    @Test func eventsWaitForTheResume() {
        let stats = BotStats()
        var player = Self.player(stats: stats)
        _ = player.begin(duelID: Array("d".utf8), at: 0)
        player.resuming = true
        _ = player.event(DuelRulesTests.question(seq: 9, index: 0), seq: 9, receivedAt: 1)
        #expect(player.duel?.rules.lastSeq == 1)
        #expect(player.silence(serial: 1, now: 5) == 5)
        #expect(player.resumeRequest(ref: 3) == .object(["op": "resume", "ref": 3, "duel_id": "d", "after_seq": 1]))
    }

    @Test func roomSeats() {
        // 10 bots in rooms of 4: rooms 0 and 1 are full, room 2 has two.
        #expect(RoomSeat(index: 0, roomSize: 4, bots: 10).isHost && RoomSeat(index: 4, roomSize: 4, bots: 10).isHost)
        #expect(RoomSeat(index: 3, roomSize: 4, bots: 10).group == 0)
        #expect(RoomSeat(index: 5, roomSize: 4, bots: 10).group == 1)
        #expect(!RoomSeat(index: 5, roomSize: 4, bots: 10).isHost)
        #expect(RoomSeat(index: 8, roomSize: 4, bots: 10).members == 2)
        #expect(RoomSeat(index: 9, roomSize: 4, bots: 10).members == 2)
    }

    /// The host creates the room, posts its code and starts once everyone is in; a member
    /// waits for the code, joins once, then waits for games.
    @Test func aRoomIsCreatedJoinedAndStarted() {
        var config = BotConfiguration()
        config.bots = 2
        config.roomSize = 2
        let tally = DuelTally(target: nil)
        let board = RoomBoard()
        var host = GameFinder(index: 0, configuration: config, tally: tally, rooms: board)
        var member = GameFinder(index: 1, configuration: config, tally: tally, rooms: board)
        let create = host.nextRoomStep()
        let noCode = member.nextRoomStep()
        #expect(create == .send(.create))
        #expect(noCode == .waitForCode)
        let created = #"{"op":"reply","ref":1,"ok":true,"data":{"room":{"code":"ABCD","members":[{"id":"a1"}]}}}"#
        let learnedCode = Array(created.utf8).withUnsafeBytes { host.read(roomReply: $0) }
        let startAlone = host.takeStart()
        #expect(learnedCode)
        #expect(!startAlone, "one member of two")
        let join = member.nextRoomStep()
        let joined = member.nextRoomStep()
        #expect(join == .send(.join(code: "ABCD")))
        #expect(joined == .waitForGame)
        let event = #"{"op":"event","event":"room","record":{"code":"ABCD","members":[{"id":"a1"},{"id":"b2"}]}}"#
        let mayStart = Array(event.utf8).withUnsafeBytes { host.read(roomEvent: $0) }
        let start = host.takeStart()
        let startAgain = host.takeStart()
        #expect(mayStart && start)
        #expect(!startAgain, "one start per game")
        let next = host.nextRoomStep()
        let nextStart = host.takeStart()
        #expect(next == .startWhenFull && nextStart)
        #expect(GameFinder.RoomRequest.join(code: "ABCD").json(ref: 4, bank: "b")
            == .object(["op": "room_join", "ref": 4, "code": "ABCD"]))
    }

    /// Shares: half a duel in the queue, a whole one for a host, none for a member.
    @Test func findersHoldTheirShares() {
        let tally = DuelTally(target: 1)
        var config = BotConfiguration()
        var queued = [0, 1, 2].map { GameFinder(index: $0, configuration: config, tally: tally, rooms: RoomBoard()) }
        let first = queued[0].reserveShare()
        let second = queued[1].reserveShare()
        let third = queued[2].reserveShare()
        #expect(first && second && !third)
        queued[0].releaseShare()
        let thirdAgain = queued[2].reserveShare()
        #expect(thirdAgain)
        config.roomSize = 2
        config.bots = 2
        var member = GameFinder(index: 1, configuration: config, tally: tally, rooms: RoomBoard())
        var host = GameFinder(index: 0, configuration: config, tally: tally, rooms: RoomBoard())
        let memberShare = member.reserveShare()
        let hostShare = host.reserveShare()
        #expect(memberShare && !hostShare)
        #expect(tally.held == 2)
    }
}
