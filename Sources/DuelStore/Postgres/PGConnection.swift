import CLibPQ
import Glibc

/// One libpq connection, owned by exactly one thread at a time.
///
/// Every call blocks that thread until Postgres answers, so a connection lives
/// on a ``DatabasePool`` worker thread (or a test's own thread), never on the
/// libwebsockets thread or inside the Swift concurrency pool.
///
/// It is the thin libpq wrapper (issue 22): connect, queries with binds, rows, transactions,
/// LISTEN notifications and errors, and no table. The domain's queries live in the
/// repositories that take a connection (``DuelRepository``, ``QueueRepository``,
/// ``PlayerRepository``, ``RoomRepository``, ``QuizRepository``, ``ProgressRepository``,
/// ``ReportRepository``), so the one object every thread holds does not grow with the rules.
public final class PGConnection {
    private var handle: OpaquePointer?
    /// Statement names by SQL text: every query is prepared once per connection,
    /// so hot paths skip parsing and planning on later calls.
    private var prepared: [String: String] = [:]
    /// Added to the NOTIFY payloads this connection sends, so the server instance
    /// that made a change can recognize (and skip) its own announcements.
    public var notificationOrigin = ""

    /// Opens a connection from a `postgresql://` URL or `key=value` keywords.
    public init(_ conninfo: String) throws(PGError) {
        let connection = PQconnectdb(conninfo)
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            throw .client("cannot connect to Postgres: \(message.trimmingTrailingNewlines)")
        }
        // libpq prints notices to stderr by default; the store has nothing to learn from them.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    /// A connection that was never opened: every call fails with a client error.
    init(closed: Void) {
        handle = nil
    }

    deinit {
        PQfinish(handle)
    }

    /// Closes the connection now; later calls fail with a client error.
    public func close() {
        PQfinish(handle)
        handle = nil
        prepared = [:]
    }

    public var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The connection's socket, for watching LISTEN notifications with poll().
    public var socket: Int32 {
        handle.map { PQsocket($0) } ?? -1
    }

    /// Runs a parameterized query (extended protocol, prepared once per connection).
    @discardableResult
    public func query(_ query: SQLQuery) throws(PGError) -> [PGRow] {
        guard let handle else { throw .client("database unavailable") }
        let name = try statementName(for: query, handle: handle)
        let result = Self.withParameters(query.binds) { values, lengths, formats in
            PQexecPrepared(handle, name, Int32(query.binds.count), values, lengths, formats, 0)
        }
        defer { PQclear(result) }
        try check(result, handle: handle)
        return rows(of: result)
    }

    /// Runs `queries` in one round trip (libpq's pipeline mode), and returns each one's rows.
    ///
    /// They are sent together and ended by one Sync. Outside an explicit transaction, Postgres
    /// runs everything before a Sync as one implicit transaction: it commits when it reaches the
    /// Sync, before this returns, or rolls back whole at the first error, which is thrown. A
    /// round of a duel lane is four round trips as `BEGIN`, lock, write and `COMMIT`, and at
    /// human pace each round trip wakes both sides (issue 25).
    public func pipeline(_ queries: [SQLQuery]) throws(PGError) -> [[PGRow]] {
        guard let handle else { throw .client("database unavailable") }
        // Prepared first, outside the pipeline (once per connection): the pipeline then holds
        // only executions, and a failed one leaves no doubt about what was prepared.
        var names: [String] = []
        for query in queries { names.append(try statementName(for: query, handle: handle)) }
        guard PQenterPipelineMode(handle) == 1 else { throw .client("cannot enter pipeline mode") }
        var failure: PGError?
        var results: [[PGRow]] = []
        for (query, name) in zip(queries, names) where failure == nil {
            let sent = Self.withParameters(query.binds) { values, lengths, formats in
                PQsendQueryPrepared(handle, name, Int32(query.binds.count), values, lengths, formats, 0)
            }
            if sent != 1 { failure = .client(String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines) }
        }
        if failure == nil, PQpipelineSync(handle) != 1 {
            failure = .client(String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines)
        }
        if failure == nil {
            // Each query's results end with a NULL; after an error the rest come back aborted.
            for _ in queries {
                var rowsOfQuery: [PGRow] = []
                while let result = PQgetResult(handle) {
                    defer { PQclear(result) }
                    if PQresultStatus(result) == PGRES_PIPELINE_ABORTED { continue }
                    do throws(PGError) {
                        try check(result, handle: handle)
                        rowsOfQuery = rows(of: result)
                    } catch {
                        failure = failure ?? error
                    }
                }
                results.append(rowsOfQuery)
            }
            // Then the Sync's own result; an error of the commit itself comes before it.
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                let status = PQresultStatus(result)
                if status == PGRES_PIPELINE_SYNC { break }
                if status == PGRES_PIPELINE_ABORTED { continue }
                do throws(PGError) { try check(result, handle: handle) } catch { failure = failure ?? error }
            }
        }
        if PQexitPipelineMode(handle) != 1 {
            // Results left unread (a broken connection): the connection cannot be trusted again.
            close()
            throw failure ?? .client("connection lost: pipeline left unfinished")
        }
        if let failure { throw failure }
        return results
    }

    /// The name `query`'s statement is prepared under on this connection, preparing it the
    /// first time.
    private func statementName(for query: SQLQuery, handle: OpaquePointer) throws(PGError) -> String {
        if let known = prepared[query.sql] { return known }
        let name = "s\(prepared.count + 1)"
        let result = PQprepare(handle, name, query.sql, Int32(query.binds.count), nil)
        defer { PQclear(result) }
        try check(result, handle: handle)
        prepared[query.sql] = name
        return name
    }

    /// Runs SQL text that may hold several statements and no parameters
    /// (simple protocol), such as a migration file.
    public func execute(script: String) throws(PGError) {
        guard let handle else { throw .client("database unavailable") }
        let result = PQexec(handle, script)
        defer { PQclear(result) }
        try check(result, handle: handle)
    }

    /// Runs `body` in a transaction, retrying it on serialization failures and deadlocks.
    public func transaction<T>(
        retries: Int = 5, _ body: (PGConnection) throws -> T
    ) throws -> T {
        var attempt = 0
        while true {
            try execute(script: "BEGIN")
            do {
                let value = try body(self)
                try execute(script: "COMMIT")
                return value
            } catch {
                if isOpen { try? execute(script: "ROLLBACK") }
                if let pgError = error as? PGError, pgError.isRetryable, attempt < retries {
                    attempt += 1
                    continue
                }
                throw error
            }
        }
    }

    /// Reads what arrived on the socket and returns pending NOTIFY messages
    /// (channel, payload). Throws when the connection is gone.
    public func notifications() throws(PGError) -> [(channel: String, payload: String)] {
        guard let handle else { throw .client("database unavailable") }
        guard PQconsumeInput(handle) == 1 else {
            throw .client("connection lost: \(String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines)")
        }
        var received: [(channel: String, payload: String)] = []
        while let notify = PQnotifies(handle) {
            received.append((String(cString: notify.pointee.relname), String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return received
    }

    private func check(_ result: OpaquePointer?, handle: OpaquePointer) throws(PGError) {
        guard let result else {
            throw .client(String(cString: PQerrorMessage(handle)).trimmingTrailingNewlines)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            func field(_ code: Int32) -> String? {
                PQresultErrorField(result, code).map { String(cString: $0) }
            }
            let primary = field(Int32(UInt8(ascii: "M")))
                ?? String(cString: PQresultErrorMessage(result)).trimmingTrailingNewlines
            throw PGError(
                sqlState: field(Int32(UInt8(ascii: "C"))),
                message: primary,
                detail: field(Int32(UInt8(ascii: "D"))),
                constraint: field(Int32(UInt8(ascii: "n"))))
        }
    }

    private func rows(of result: OpaquePointer?) -> [PGRow] {
        guard let result else { return [] }
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        guard rowCount > 0 else { return [] }
        var columns: [String: Int] = [:]
        for column in 0..<columnCount {
            columns[String(cString: PQfname(result, Int32(column)))] = column
        }
        return (0..<rowCount).map { row in
            PGRow(columns: columns, values: (0..<columnCount).map { column in
                PQgetisnull(result, Int32(row), Int32(column)) == 1
                    ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
            })
        }
    }

    /// Calls `body` with libpq's three parameter arrays: the values (NUL-terminated copies of the
    /// text ones, nil for NULL), and when any value is binary, every value's length and format
    /// (1 for binary); otherwise those two are nil, as libpq reads all-text parameters. The
    /// copies live for the call.
    private static func withParameters<R>(
        _ binds: [PGValue],
        _ body: ([UnsafePointer<CChar>?], UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        var anyBinary = false
        let copies = binds.map { bind -> UnsafeMutablePointer<CChar>? in
            switch bind {
            case .null: return nil
            case .text(let text): return strdup(text)
            case .binary(let bytes):
                anyBinary = true
                // One byte more, so an empty value still has an address of its own.
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: raw.count) }
                }
                return copy
            }
        }
        defer {
            for (bind, copy) in zip(binds, copies) {
                if case .binary = bind { copy?.deallocate() } else { free(copy) }
            }
        }
        let values = copies.map { $0.map { UnsafePointer($0) } }
        guard anyBinary else { return body(values, nil, nil) }
        let lengths = binds.map { bind -> Int32 in if case .binary(let bytes) = bind { Int32(bytes.count) } else { 0 } }
        let formats = binds.map { bind -> Int32 in if case .binary = bind { 1 } else { 0 } }
        return lengths.withUnsafeBufferPointer { lengths in
            formats.withUnsafeBufferPointer { formats in body(values, lengths.baseAddress, formats.baseAddress) }
        }
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var text = self
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
