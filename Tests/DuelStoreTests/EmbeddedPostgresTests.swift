import DuelStore
import Foundation
import Testing

/// The embedded Postgres trusts whoever reaches its socket (initdb -A trust), so only the
/// server's own user may reach it (issue 10 item 13).
@Suite struct EmbeddedPostgresTests {
    @Test func onlyTheServersUserReachesTheSocket() throws {
        let root = URL(fileURLWithPath: "/tmp/quizduel-embedded-\(getpid())")
        let postgres = try EmbeddedPostgres(root: root, port: 5499)
        try postgres.start()
        defer {
            postgres.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let socket = postgres.socketDirectory.appendingPathComponent(".s.PGSQL.5499").path
        var info = stat()
        #expect(stat(socket, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700, "socket mode \(String(info.st_mode & 0o777, radix: 8))")
        var directory = stat()
        #expect(stat(postgres.socketDirectory.path, &directory) == 0)
        #expect(directory.st_mode & 0o077 == 0, "socket directory open to others")
        // As root, also try it as another local user: refused before authentication.
        if getuid() == 0 {
            let psql = Process()
            psql.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            psql.arguments = ["-u", "nobody", "--", "psql", "-h", postgres.socketDirectory.path, "-p", "5499",
                              "-U", "postgres", "-XAtc", "SELECT 1", "postgres"]
            let errors = Pipe()
            psql.standardError = errors
            psql.standardOutput = FileHandle.nullDevice
            try psql.run()
            psql.waitUntilExit()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(psql.terminationStatus != 0, "another local user got in")
            #expect(message.contains("Permission denied"), "\(message)")
        }
    }
}
