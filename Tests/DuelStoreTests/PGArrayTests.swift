import TestSupport
@testable import DuelStore
import Testing

/// The `text[]` literal the lanes build for every column of every row: whatever an element
/// holds (quotes, backslashes, braces, commas, multi-byte text, nothing), Postgres reads back
/// exactly the elements sent, NULLs included.
@Suite struct PGArrayTests {
    @Test func everyElementComesBackAsSent() async throws {
        let fixture = try StoreFixture(workers: 1)
        let connection = try fixture.connect()
        defer { connection.close() }
        let elements: [String?] = [
            #"{"kind":"answered","record":{"text":"say \"hi\" \\ bye"}}"#, "", nil, "NULL", #"\"#, #"""#,
            #"\\"\""#, "a,b}{c", "naïve 東京 😀", "plain", String(repeating: #"x"\"#, count: 500),
        ]
        let rows = try connection.query("""
            SELECT ord, e FROM unnest(\(PGArray(elements))::text[]) WITH ORDINALITY AS t(e, ord) ORDER BY ord
            """)
        #expect(rows.count == elements.count)
        for (row, element) in zip(rows, elements) {
            #expect(row.optionalString("e") == element)
        }
    }
}
