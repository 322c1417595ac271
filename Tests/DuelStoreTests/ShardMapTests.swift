import DuelStore
import Foundation
import Testing
import TestSupport

/// ``PostgresHash`` must be Postgres's own `uuid_hash`, or a lane would group duels by the wrong
/// shard (issue 24). Compared on a real Postgres, over ids of every kind of byte.
@Suite struct ShardMapTests {
    @Test func hashIsPostgresUUIDHash() throws {
        let db = try PGConnection(try TestPostgres.migratedDatabase(seed: false))
        defer { db.close() }
        var ids = (0..<300).map { _ in UUID().uuidString.lowercased() }
        ids += ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"]
        let rows = try db.query("""
            SELECT id::text AS id, uuid_hash(id) AS h FROM unnest(\(PGArray(ids))::uuid[]) AS id
            """)
        #expect(rows.count == ids.count)
        for row in rows {
            let id = try row.string("id")
            let bytes = try #require(PostgresHash.uuidBytes(id))
            #expect(Int(PostgresHash.uuid(bytes)) == (try row.int("h")), "uuid_hash(\(id))")
        }
    }

    @Test func groupsFollowTheLowerBounds() {
        let map = ShardMap(lowerBounds: [Int32.min, -1_073_741_824, 0, 1_073_741_824])
        for _ in 0..<200 {
            let id = UUID().uuidString
            let hash = PostgresHash.uuid(PostgresHash.uuidBytes(id)!)
            let expected = hash < -1_073_741_824 ? 0 : hash < 0 ? 1 : hash < 1_073_741_824 ? 2 : 3
            #expect(map.group(of: id) == expected)
        }
        #expect(ShardMap.single.group(of: UUID().uuidString) == 0)
        #expect(map.group(of: "not-a-uuid") == 0)
        #expect(PostgresHash.uuidBytes("0123") == nil)
    }
}
