import DuelCore
import Foundation
import Synchronization

/// Appends every text frame a test client sends and receives to the JSON Lines file named
/// by `QUIZDUEL_FRAME_LOG`, one `{"source","conn","dir","frame"}` object per line, so that
/// `Tests/schema/run` can check the server's real output against docs/schema/.
/// Off (and free) when the variable is unset; the bots' light path never records.
enum FrameLog {
    private static let file: Mutex<FileHandle?> = Mutex({
        guard let path = ProcessInfo.processInfo.environment["QUIZDUEL_FRAME_LOG"], !path.isEmpty else { return nil }
        let url = URL(fileURLWithPath: path)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = FileHandle(forWritingAtPath: path)
        _ = try? handle?.seekToEnd()
        return handle
    }())
    private static let source = "swift:\(ProcessInfo.processInfo.processIdentifier)"

    static func record(connection: UInt64, outgoing: Bool, _ bytes: [UInt8]) {
        file.withLock { handle in
            guard let handle else { return }
            let line = JSONValue.object([
                "source": .string(source), "conn": .string(String(connection)),
                "dir": .string(outgoing ? "out" : "in"), "frame": .string(String(decoding: bytes, as: UTF8.self)),
            ]).serialized + "\n"
            handle.write(Data(line.utf8))
        }
    }
}
