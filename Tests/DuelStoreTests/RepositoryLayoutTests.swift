import Foundation
import Testing
@testable import DuelStore

/// `PGConnection` is the thin libpq wrapper; the domain's queries live in repositories that take
/// a connection (issue 22). These checks fail when a query file extends the connection again, or
/// when state creeps into the connection or a repository.
@Suite struct RepositoryLayoutTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Files that may extend `PGConnection`, relative to Sources: generic libpq plumbing only
    /// (none today: it all lives in Postgres/PGConnection.swift). A domain query goes in its
    /// aggregate's repository instead.
    static let plumbing: Set<String> = []

    @Test func onlyPlumbingExtendsTheConnection() throws {
        let extending = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" }
            .filter { url in
                let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
                return text.range(of: #"extension\s+PGConnection\b"#, options: .regularExpression) != nil
            }
            .map { String($0.standardizedFileURL.path.dropFirst(Self.sources.standardizedFileURL.path.count + 1)) }
        #expect(Set(extending) == Self.plumbing)
    }

    /// The connection holds its libpq handle, its prepared statements and the origin tag of its
    /// NOTIFYs; a lane's state (``DuelLaneState``) lives in the lane.
    @Test func theConnectionHoldsOnlyPlumbing() {
        let labels = Mirror(reflecting: PGConnection(closed: ())).children.compactMap(\.label)
        #expect(labels == ["handle", "prepared", "notificationOrigin"])
    }

    /// A repository is the connection and nothing else, so making one per use costs nothing
    /// and no state outlives the call.
    @Test func repositoriesHoldOnlyTheConnection() {
        let db = PGConnection(closed: ())
        let repositories: [Any] = [
            DuelRepository(db), QueueRepository(db), PlayerRepository(db), RoomRepository(db),
            QuizRepository(db), ProgressRepository(db), ReportRepository(db),
        ]
        for repository in repositories {
            #expect(Mirror(reflecting: repository).children.map(\.label) == ["db"], "\(type(of: repository))")
        }
    }
}
