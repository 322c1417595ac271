import Testing
import DuelClient
import DuelCore
import DuelServer
import DuelStore
import Foundation
import Logging
import TestSupport

/// A real duel server for the tests: in this process (``start(_:)``) or as a
/// separate `duel-server` process (``spawn(conninfo:port:)``, which a test can
/// SIGKILL), always on a fresh database of the test Postgres.
final class TestServer: @unchecked Sendable {
    let conninfo: String
    let port: Int
    private var server: DuelServer?
    private var process: Process?
    /// Who reads ops.duel_anomalies at the end (``start(auditAs:_:)``).
    private var auditConninfo: String?

    var url: String { "ws://127.0.0.1:\(port)/duel" }

    /// Short durations so whole duels take a second or two. Rounds store every event, so that the
    /// end check compares each one with the log's replay (a test that plays as a deployment does
    /// turns it off).
    static func fastRules() -> ServerConfiguration {
        var config = ServerConfiguration()
        config.network.host = "127.0.0.1"
        config.duel = DuelConfiguration(
            countdownMs: 100, answerWindowMs: 1_500, revealMs: 100, abandonAfterMs: 4_000, questionCount: 3)
        config.jobs.matchIntervalMs = 50
        config.jobs.sweepIntervalMs = 200
        config.database.connections = 4
        config.database.storesEveryEvent = true
        return config
    }

    private init(conninfo: String, port: Int) {
        self.conninfo = conninfo
        self.port = port
    }

    /// `auditAs`: the conninfo the end-of-test check reads `ops.duel_anomalies` with, when the
    /// server runs as a role that may not read the operators' views (default: the server's own).
    static func start(auditAs: String? = nil, _ tweak: (inout ServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        var config = fastRules()
        tweak(&config)
        let conninfo = try config.database.url ?? TestPostgres.migratedDatabase(seed: true)
        config.database.url = conninfo
        config.network.port = freePort()
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        let server = DuelServer(configuration: config, logger: logger)
        try server.start()
        let test = TestServer(conninfo: conninfo, port: config.network.port)
        test.server = server
        test.auditConninfo = auditAs ?? conninfo
        return test
    }

    /// A second instance on this one's database (another server sharing its Postgres).
    func another(_ tweak: (inout ServerConfiguration) -> Void = { _ in }) throws -> TestServer {
        try Self.start { tweak(&$0); $0.database.url = conninfo }
    }

    /// Runs the `duel-server` executable built next to the tests (storing every event unless
    /// `storesEveryEvent` is false, as ``fastRules()``).
    static func spawn(
        conninfo: String? = nil, port: Int? = nil, answerMs: Int = 1_500, storesEveryEvent: Bool = true
    ) throws -> TestServer {
        let conninfo = try conninfo ?? TestPostgres.migratedDatabase(seed: true)
        let port = port ?? freePort()
        let process = Process()
        process.executableURL = productsDirectory.appendingPathComponent("duel-server")
        process.arguments = [
            "--host", "127.0.0.1", "--port", String(port), "--countdown-ms", "100", "--answer-ms", String(answerMs),
            "--reveal-ms", "100", "--abandon-ms", "4000", "--questions", "3", "--db-connections", "4", "--log-level", "warning",
        ] + (storesEveryEvent ? ["--store-every-event"] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = conninfo
        environment["QUIZDUEL_SQL_DIR"] = SQLFiles.directory().path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let test = TestServer(conninfo: conninfo, port: port)
        test.process = process
        // Ready when the port accepts connections.
        for _ in 0..<200 {
            if canConnect(port: port) { return test }
            usleep(50_000)
        }
        process.terminate()
        throw DuelClientError.connectFailed("duel-server did not start on port \(port)")
    }

    func stop() {
        expectNoAnomalies()
        server?.stop()
        server = nil
        if let process, process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        expectEventsThatFollowFromTheLog()
    }

    /// The rules migration 024 took off the tables a lane round writes (ops.duel_anomalies), checked
    /// at every test server's end: every kind of game the server tests play must leave rows that
    /// keep them. A database the test has made unreachable (a killed Postgres) is not checked.
    private func expectNoAnomalies() {
        guard let db = try? PGConnection(auditConninfo ?? conninfo) else { return }
        defer { db.close() }
        // Reachable, the view must answer: a view that fails would otherwise check nothing.
        let rows: [PGRow]
        do {
            rows = try db.query("SELECT table_name, key, rule FROM ops.duel_anomalies ORDER BY 1, 2, 3")
        } catch {
            Issue.record("ops.duel_anomalies did not answer: \(error)")
            return
        }
        for row in rows {
            Issue.record("ops.duel_anomalies: \(row["table_name"] ?? "?") \(row["key"] ?? "?") breaks \(row["rule"] ?? "?")")
        }
    }

    /// Every stored event after a duel's start is what its input log gives, replayed on its start
    /// state (``DuelRepository/replayedEvents(_:)``), and the duel's row says the seq and input
    /// count the replay ends at; checked at every test server's end, after it stopped. Readers
    /// derive events from the log instead of reading them (issue 25): they must be the events the
    /// players got. Every stored row after the start must be its replayed event, byte for byte (a
    /// server that stores every event, as test servers do by default, stores them all), and
    /// every replayed `complete` must be stored (what `history` shows).
    /// Duels without inputs (a test's hand-made rows, or old games whose log `ops.archive_events`
    /// trimmed) have nothing to replay. Read as the server's own role (an auditing operator may
    /// not read duels), on one snapshot; another instance may still be writing, which on Citus
    /// can put a round between two reads (each shard's read has its own snapshot there), so a
    /// duel that differs is read again a few times before it counts. A database the test made
    /// unreachable is not checked.
    private func expectEventsThatFollowFromTheLog() {
        guard let db = try? PGConnection(conninfo) else { return }
        defer { db.close() }
        do {
            let ids = try db.query("SELECT DISTINCT duel_id::text AS id FROM duel_inputs ORDER BY 1").map { try $0.string("id") }
            var differing = ids.isEmpty ? [:] : try Self.replayDifferences(ids, on: db)
            for _ in 0..<3 where !differing.isEmpty {
                usleep(300_000)
                differing = try Self.replayDifferences(Array(differing.keys).sorted(), on: db)
            }
            for (id, difference) in differing.sorted(by: { $0.key < $1.key }) {
                Issue.record("duel \(id): \(difference)")
            }
        } catch {
            Issue.record("the events' replay did not answer: \(error)")
        }
    }

    /// The duels among `ids` whose stored events or row differ from their replayed log, with the
    /// first difference of each.
    private static func replayDifferences(_ ids: [String], on db: PGConnection) throws -> [String: String] {
        func show(_ event: StoredEvent) -> String { "\(event.seq) \(event.kind) at \(event.atMs): \(event.recordJSON)" }
        return try db.transaction(retries: 0) { db in
            try db.execute(script: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            var replays: [String: ReplayedDuel] = [:]
            var differing: [String: String] = [:]
            do {
                replays = try DuelRepository(db).replayedEvents(ids)
            } catch {
                // One duel that cannot be rebuilt would hide the rest: name it.
                try db.execute(script: "ROLLBACK; BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                for id in ids {
                    do { replays.merge(try DuelRepository(db).replayedEvents([id])) { $1 } } catch {
                        differing[id] = "cannot be rebuilt: \(error)"
                    }
                }
            }
            var rows: [String: (lastSeq: Int, inputs: Int)] = [:]
            for row in try db.query("""
                SELECT id::text AS id, last_seq, inputs FROM duels WHERE id = ANY(\(PGArray(ids))::uuid[])
                """) {
                rows[try row.string("id")] = (try row.int("last_seq"), try row.int("inputs"))
            }
            // The start's events are written with the duel, not replayed.
            let stored = try DuelRepository(db).storedEvents(
                replays.map { (duelID: $0.key, afterSeq: $0.value.startSeq, upToSeq: Int(Int32.max)) })
            for (id, replay) in replays where differing[id] == nil {
                let kept = stored[id]?.events ?? []
                // The replayed events of the seqs stored, and every `complete`: rounds of servers
                // that store every event and of those that store only a game's end may both have
                // played the duel (a lane test's duel that a server's sweep moves on).
                let storedSeqs = Set(kept.map(\.seq))
                let replayed = replay.events.filter { storedSeqs.contains($0.seq) || $0.kind == .complete }
                if replayed != kept {
                    let at = zip(replayed, kept).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        ?? min(replayed.count, kept.count)
                    differing[id] = """
                        the log replays \(replayed.count) events, \(kept.count) stored; first difference at \(at): \
                        replayed \(at < replayed.count ? show(replayed[at]) : "none"), \
                        stored \(at < kept.count ? show(kept[at]) : "none")
                        """
                } else if replay.unchangedInputs > 0 {
                    differing[id] = "\(replay.unchangedInputs) logged inputs change nothing on replay"
                } else if let row = rows[id], row != (replay.lastSeq, replay.inputs) {
                    differing[id] = "the row says seq \(row.lastSeq) after \(row.inputs) inputs, the replay \(replay.lastSeq) after \(replay.inputs)"
                }
            }
            return differing
        }
    }

    /// Kills the spawned process at once, as a crash would.
    func kill() {
        guard let process else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func database() throws -> PGConnection {
        try PGConnection(conninfo)
    }

    /// The directory holding the test bundle and the executables SwiftPM built.
    static var productsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug")
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func canConnect(port: Int) -> Bool {
        let fd = connectLoopback(port: port)
        defer { if fd >= 0 { close(fd) } }
        return fd >= 0
    }
}

/// A player at a client: signs up on connect, and helpers for the common steps.
struct TestPlayer {
    let client: DuelClient
    let id: PlayerID
    let token: String
    let username: String

    static func signUp(_ url: String, _ name: String = "p\(UInt32.random(in: 0...UInt32.max))") async throws -> TestPlayer {
        let client = try DuelClient(url: url)
        try await client.connect()
        let reply = try await client.request("signup", ["username": .string(name), "password": "correct horse battery"])
        guard let id = reply["data"]?["player"]?["id"]?.string, let token = reply["data"]?["token"]?.string else {
            throw DuelClientError.connectFailed("signup failed: \(reply.serialized)")
        }
        return TestPlayer(client: client, id: id, token: token, username: name)
    }

    /// A second connection of the same player, authenticated with the token.
    func reconnect(_ url: String) async throws -> (TestPlayer, JSONValue) {
        let client = try DuelClient(url: url)
        try await client.connect()
        let reply = try await client.request("auth", ["token": .string(token)])
        return (TestPlayer(client: client, id: id, token: token, username: username), reply)
    }
}

/// Two players queued for one bank, paired, both at their `init` event.
func startDuel(_ url: String, bank: String = "world-capitals") async throws -> (TestPlayer, TestPlayer, String) {
    let a = try await TestPlayer.signUp(url)
    let b = try await TestPlayer.signUp(url)
    _ = try await a.client.request("queue", ["bank": .string(bank)])
    _ = try await b.client.request("queue", ["bank": .string(bank)])
    guard let initA = await a.client.nextEvent("init"), let initB = await b.client.nextEvent("init"),
          let duel = initA["duel_id"]?.string, initB["duel_id"]?.string == duel
    else { throw DuelClientError.timeout("init") }
    return (a, b, duel)
}

/// The correct choice of question `index` of a duel, read from the database as
/// only a test may (the server never tells before the reveal).
func correctChoice(_ server: TestServer, duel: String, index: Int) throws -> Int {
    let db = try server.database()
    defer { db.close() }
    return try db.query("""
        SELECT q.correct_choice FROM duel_questions dq JOIN questions q ON q.id = dq.question_id
         WHERE dq.duel_id = \(duel)::uuid AND dq.question_index = \(index)
        """)[0].int("correct_choice")
}

/// `a` answers question 0 of `duel` wrong, then `b` forfeits: `a`'s mistakes are the questions
/// the duel asked (question 0, and any the reveal opened).
func missFirstQuestion(_ server: TestServer, _ a: TestPlayer, _ b: TestPlayer, duel: String) async throws {
    guard let question = await a.client.nextEvent("question"),
          case .array(let options)? = question["record"]?["question"]?["choices"] else {
        throw DuelClientError.timeout("question")
    }
    let correct = try correctChoice(server, duel: duel, index: 0)
    _ = try await a.client.request("answer", [
        "duel_id": .string(duel), "question_index": 0, "choice": .number((correct + 1) % options.count),
    ])
    _ = await a.client.nextEvent("reveal")
    _ = try await b.client.request("forfeit", ["duel_id": .string(duel)])
    guard await a.client.nextEvent("complete") != nil else { throw DuelClientError.timeout("complete") }
}

/// Plays every question of `duel` alone (a practice game) to its `complete`, answering right
/// when `right`; events of other games are passed over.
@discardableResult
func playAlone(_ server: TestServer, _ player: TestPlayer, duel: String, right: Bool = true) async throws -> JSONValue {
    while true {
        guard let event = await player.client.next(timeout: .seconds(10)) else { throw DuelClientError.timeout("event of \(duel)") }
        guard event["duel_id"] == .string(duel) else { continue }
        if event["event"] == "complete" { return event }
        guard event["event"] == "question", let index = event["record"]?["question"]?["index"]?.integer,
              case .array(let options)? = event["record"]?["question"]?["choices"] else { continue }
        let correct = try correctChoice(server, duel: duel, index: Int(index))
        let reply = try await player.client.request("answer", [
            "duel_id": .string(duel), "question_index": .int(index),
            "choice": .number(right ? correct : (correct + 1) % options.count),
        ])
        #expect(reply["ok"] == true, "\(reply.serialized)")
    }
}

/// `player`'s notebook (`mistakes`, at least one line), then `games` practice games of it played
/// right to their end: two make every mistake learned (is_learned). Returns the notebook's lines
/// and the games' ids.
func practiceTheNotebook(_ server: TestServer, _ player: TestPlayer, games: Int = 2) async throws
    -> (missed: [JSONValue], games: [String]) {
    let before = try await player.client.request("mistakes", ["limit": 10])
    guard case .array(let missed)? = before["data"]?["questions"], !missed.isEmpty else {
        throw DuelClientError.timeout("mistakes: \(before.serialized)")
    }
    var played: [String] = []
    for _ in 0..<games {
        let reply = try await player.client.request("practice", ["mistakes": true])
        guard let game = reply["data"]?["duel_id"]?.string else { throw DuelClientError.timeout("\(reply.serialized)") }
        try await playAlone(server, player, duel: game)
        played.append(game)
    }
    return (missed, played)
}

/// A plain HTTP/1.1 GET over a socket (Foundation's URL loading is not in core Foundation on Linux).
func httpGet(port: Int, _ path: String) -> (status: Int, body: String) {
    let fd = connectLoopback(port: port)
    guard fd >= 0 else { return (0, "") }
    defer { close(fd) }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    let text = String(decoding: readUntilClosed(fd), as: UTF8.self)
    let status = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
    return (status, body)
}

/// A TCP connection to 127.0.0.1:`port`; the descriptor, or -1.
func connectLoopback(port: Int) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if connected != 0 {
        close(fd)
        return -1
    }
    return fd
}

/// Everything the peer sends on `fd` until it closes, or until `timeoutSeconds` of silence.
func readUntilClosed(_ fd: Int32, timeoutSeconds: Int = 5) -> [UInt8] {
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        received += buffer[0..<count]
    }
    return received
}

/// A final client frame with `opcode`, masked with key 0 so the payload goes as is (RFC 6455
/// 5.3 wants every client frame masked); payloads under 126 bytes.
func maskedFrame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
    precondition(payload.count < 126)
    return [0x80 | opcode, 0x80 | UInt8(payload.count), 0, 0, 0, 0] + payload
}

/// A TCP connection upgraded to WebSocket on /duel (the 101 consumed), or nil when the
/// server refused the upgrade. `headers` are extra request lines ("Name: value").
func upgradedSocket(port: Int, headers: [String] = []) -> Int32? {
    let fd = connectLoopback(port: port)
    guard fd >= 0 else { return nil }
    let request = "GET /duel HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + headers.map { $0 + "\r\n" }.joined() + "\r\n"
    _ = Array(request.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var head: [UInt8] = []
    while !(head.count >= 4 && Array(head.suffix(4)) == Array("\r\n\r\n".utf8)) {
        guard let byte = readExactly(fd, 1, timeoutSeconds: 3) else { break }
        head += byte
    }
    guard String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
        close(fd)
        return nil
    }
    return fd
}

/// `count` bytes from `fd`, or nil if it closed or stayed silent for `timeoutSeconds`.
func readExactly(_ fd: Int32, _ count: Int, timeoutSeconds: Int) -> [UInt8]? {
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var bytes = [UInt8](repeating: 0, count: count)
    var got = 0
    while got < count {
        let n = bytes[got...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, count - got, 0) }
        if n <= 0 { return nil }
        got += n
    }
    return bytes
}

/// Every suite that starts servers or clients nests in this one: `.serialized` applies to
/// everything inside it, so even a plain `swift test` (parallel by default) runs them one at
/// a time. Tearing down one libwebsockets context while another is busy in the same process
/// was seen to drop the other's connections. Pure suites stay outside and run in parallel.
@Suite(.serialized) enum ServerTests {}
