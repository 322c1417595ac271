import Foundation
import Logging

/// A private PostgreSQL server for development and tests, started from the
/// machine's Postgres binaries (Debian's `postgresql` package).
///
/// It lives in one directory: `data/` (created by initdb on first use),
/// `socket/` (a Unix socket only; no TCP port is opened) and `postgres.log`.
/// Postgres refuses to run as root, so when started as root it runs as the
/// `postgres` system user (or `nobody`), which then owns the directory.
public final class EmbeddedPostgres: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case binariesNotFound
        case commandFailed(String, Int32, String)
        case notReady(String)

        public var description: String {
            switch self {
            case .binariesNotFound:
                "PostgreSQL server binaries not found: install the 'postgresql' package (the README's commands do)"
            case .commandFailed(let command, let status, let log):
                "\(command) failed with status \(status)\n\(log)"
            case .notReady(let log): "Postgres did not become ready in time; its log says:\n\(log)"
            }
        }
    }

    public let root: URL
    public let port: Int
    private let logger: Logger
    private let binaries: URL
    private let runAs: String?
    private var process: Process?

    public var dataDirectory: URL { root.appendingPathComponent("data") }
    public var socketDirectory: URL { root.appendingPathComponent("socket") }
    public var logFile: URL { root.appendingPathComponent("postgres.log") }

    /// libpq keywords for the superuser connection to database `database`.
    public func conninfo(database: String = "postgres") -> String {
        "host=\(socketDirectory.path) port=\(port) user=postgres dbname=\(database) connect_timeout=5"
    }

    public init(root: URL, port: Int = 5432, logger: Logger = Logger(label: "quizduel.embedded-postgres")) throws {
        guard let binaries = EmbeddedPostgres.findBinaries() else { throw Failure.binariesNotFound }
        self.root = root.standardizedFileURL
        self.port = port
        self.logger = logger
        self.binaries = binaries
        self.runAs = getuid() == 0 ? EmbeddedPostgres.unprivilegedUser() : nil
    }

    /// The newest installed `/usr/lib/postgresql/N/bin`, or the directory of `pg_ctl` on PATH.
    static func findBinaries() -> URL? {
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions {
            let bin = URL(fileURLWithPath: "\(base)/\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let bin = URL(fileURLWithPath: String(directory))
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        return nil
    }

    private static func unprivilegedUser() -> String {
        getpwnam("postgres") != nil ? "postgres" : "nobody"
    }

    /// Creates the cluster if needed, starts the server and waits until it accepts connections.
    public func start() throws {
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: true)
        if let runAs {
            // The server's user must own its directory; chmod lets it traverse there.
            try run("/bin/chown", ["-R", runAs, root.path])
            try run("/bin/chmod", ["0755", root.path])
            try run("/bin/chmod", ["0700", socketDirectory.path])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: socketDirectory.path)
        }
        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("PG_VERSION").path) {
            logger.info("initializing a new Postgres cluster", metadata: ["path": "\(dataDirectory.path)"])
            try runAsServerUser(binaries.appendingPathComponent("initdb").path, [
                "-D", dataDirectory.path, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-instructions",
            ])
        }
        try stopLeftover()
        let postgres = Process()
        let arguments = [
            "-D", dataDirectory.path, "-k", socketDirectory.path, "-p", String(port),
            "-c", "listen_addresses=", "-c", "max_connections=200", "-c", "fsync=on",
            // initdb's trust authentication lets whoever reaches the socket in as the
            // superuser, so only the server's own user may reach it (root passes anyway).
            "-c", "unix_socket_permissions=0700",
        ]
        if let runAs {
            postgres.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            postgres.arguments = ["-u", runAs, "--", binaries.appendingPathComponent("postgres").path] + arguments
        } else {
            postgres.executableURL = binaries.appendingPathComponent("postgres")
            postgres.arguments = arguments
        }
        if !FileManager.default.fileExists(atPath: logFile.path) {
            _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        }
        if let runAs { try run("/bin/chown", [runAs, logFile.path]) }
        let log = try FileHandle(forWritingTo: logFile)
        log.seekToEndOfFile()
        postgres.standardOutput = log
        postgres.standardError = log
        postgres.standardInput = FileHandle.nullDevice
        try postgres.run()
        process = postgres
        try waitUntilReady()
        logger.info("embedded Postgres ready", metadata: ["socket": "\(socketDirectory.path)"])
    }

    /// Stops the server (fast shutdown: running transactions are rolled back).
    public func stop() {
        guard let process else { return }
        // pg_ctl signals the postmaster itself; a signal to `runuser` would not reach it.
        _ = try? runAsServerUser(binaries.appendingPathComponent("pg_ctl").path, [
            "stop", "-D", dataDirectory.path, "-m", "fast", "-w", "-t", "20",
        ])
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        self.process = nil
    }

    /// A server left running by a process that died: stop it before starting ours.
    private func stopLeftover() throws {
        let pidFile = dataDirectory.appendingPathComponent("postmaster.pid")
        guard FileManager.default.fileExists(atPath: pidFile.path) else { return }
        _ = try? runAsServerUser(binaries.appendingPathComponent("pg_ctl").path, [
            "stop", "-D", dataDirectory.path, "-m", "fast", "-w",
        ])
    }

    private func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let connection = try? PGConnection(conninfo()) {
                connection.close()
                return
            }
            if process?.isRunning != true { break }
            usleep(50_000)
        }
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        throw Failure.notReady(String(log.suffix(2_000)))
    }

    private func runAsServerUser(_ executable: String, _ arguments: [String]) throws {
        if let runAs {
            try run("/usr/sbin/runuser", ["-u", runAs, "--", executable] + arguments)
        } else {
            try run(executable, arguments)
        }
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw Failure.commandFailed(([executable] + arguments).joined(separator: " "), process.terminationStatus, text)
        }
        return text
    }
}
