import TestSupport
@testable import DuelStore
import Testing

/// The binary arrays a lane round binds (``PGBinaryArray``): Postgres reads back exactly the
/// elements sent, NULLs, extremes and empty arrays included; and what the binary form cannot
/// hold goes as the text literal, so Postgres refuses it with the error it always gave.
@Suite struct PGBinaryArrayTests {
    let fixture: StoreFixture
    init() throws { fixture = try StoreFixture(workers: 1, seed: false) }

    /// Each element's text as Postgres prints it, in order, with NULL as nil.
    private func elements(_ connection: PGConnection, _ array: PGBinaryArray, as type: String) throws -> [String?] {
        try connection.query("""
            SELECT e::text AS e FROM unnest(\(array)::\(unsafeRaw: type)[]) WITH ORDINALITY AS t(e, ord) ORDER BY ord
            """).map { $0.optionalString("e") }
    }

    @Test func everyTypeComesBackAsSent() throws {
        let connection = try fixture.connect()
        defer { connection.close() }
        let texts: [String?] = [
            #"{"kind":"answered","record":{"text":"say \"hi\" \\ bye"}}"#, "", nil, "NULL", #"\"#, #"""#,
            "a,b}{c", "naïve 東京 😀", String(repeating: #"x"\"#, count: 500),
        ]
        #expect(try elements(connection, .texts(texts), as: "text") == texts)
        let uuids: [String?] = ["00000000-0000-0000-0000-000000000000", nil, "ffffffff-ffff-ffff-ffff-ffffffffffff",
                                "0123abcd-4567-89ef-0123-456789abcdef"]
        #expect(try elements(connection, .uuids(uuids), as: "uuid") == uuids)
        #expect(try elements(connection, .uuids(["0123ABCD-4567-89EF-0123-456789ABCDEF"]), as: "uuid")
                == ["0123abcd-4567-89ef-0123-456789abcdef"])
        let ints: [Int?] = [0, -1, 1, nil, Int(Int32.min), Int(Int32.max), 1_000_000]
        #expect(try elements(connection, .ints(ints), as: "int") == ints.map { $0.map(String.init) })
        let bigints: [Int64?] = [0, nil, Int64.min, Int64.max, 1_764_000_000_000]
        #expect(try elements(connection, .bigints(bigints), as: "bigint") == bigints.map { $0.map(String.init) })
        let doubles: [Double?] = [0.1, -2.5, nil, 1e308, 3]
        #expect(try elements(connection, .float8s(doubles), as: "float8") == ["0.1", "-2.5", nil, "1e+308", "3"])
        #expect(try elements(connection, .booleans([true, nil, false]), as: "boolean") == ["true", nil, "false"])
        for type in ["text", "uuid", "int", "bigint", "float8", "boolean"] {
            let empty: PGBinaryArray = switch type {
            case "text": .texts([])
            case "uuid": .uuids([])
            case "int": .ints([])
            case "bigint": .bigints([])
            case "float8": .float8s([])
            default: .booleans([])
            }
            #expect(try elements(connection, empty, as: type).isEmpty, "empty \(type)[]")
        }
    }

    /// Binary all the way: a parameter that stayed text would still read back right, so this
    /// checks the form itself.
    @Test func wellFormedElementsGoInBinary() {
        for array in [PGBinaryArray.texts(["a"]), .uuids(["0123abcd-4567-89ef-0123-456789abcdef"]), .ints([1]),
                      .bigints([1]), .float8s([1]), .booleans([true])] {
            guard case .binary = array.pgValue else {
                Issue.record("\(array.pgValue) is not binary")
                continue
            }
        }
    }

    @Test func whatBinaryCannotHoldFailsAsText() throws {
        let connection = try fixture.connect()
        defer { connection.close() }
        #expect(PGBinaryArray.uuids(["not-a-uuid"]).pgValue == .text(#"{"not-a-uuid"}"#))
        #expect(PGBinaryArray.ints([Int(Int32.max) + 1]).pgValue == .text(#"{"2147483648"}"#))
        for (array, type, state) in [(PGBinaryArray.uuids(["0123abcd-4567-89ef-0123-456789abcde"]), "uuid", "22P02"),
                                     (.uuids(["0123abcd-4567-89ef-0123-456789abcdef0"]), "uuid", "22P02"),
                                     (.ints([Int(Int32.min) - 1]), "int", "22003")] {
            #expect(throws: PGError.self) { try elements(connection, array, as: type) }
            do {
                _ = try elements(connection, array, as: type)
            } catch {
                #expect((error as? PGError)?.sqlState == state, "\(type): \(error)")
            }
        }
    }
}
