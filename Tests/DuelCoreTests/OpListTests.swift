import Foundation
import Testing
@testable import DuelCore

/// ``Op`` is the one list of op names (issue 22): the decoder and router derive from it, and the
/// documentation must name every op it has (the schema check, Tests/schema, checks that the
/// schema has no op the frames never showed).
@Suite struct OpListTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func text(_ path: String) throws -> String {
        try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func everyOpIsDocumentedInProtocolAndSchema() throws {
        // The names in the first cell of PROTOCOL.md's table rows (a row may name two ops).
        var rows = Set<String>()
        for line in try text("docs/PROTOCOL.md").split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            rows.formUnion(cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
        }
        // The schema's request definitions carry their op as a `const`.
        let schema = try JSONParser.parse(try text("docs/schema/client-message.json")).serialized
        for op in Op.allCases {
            #expect(rows.contains(op.rawValue), "PROTOCOL.md has no row for \(op.rawValue)")
            #expect(schema.contains(#""const":"\#(op.rawValue)""#), "the schema has no request for \(op.rawValue)")
        }
    }

    @Test func everyOpDecodesToItselfOrIsRefusedByName() {
        for op in Op.allCases {
            switch ClientRequest.decode(Array(#"{"op":"\#(op.rawValue)"}"#.utf8)) {
            case .success(let envelope): #expect(envelope.request.op == op.rawValue)
            case .failure(let failure): #expect(failure.error.code != .unknownOp, "\(op.rawValue)")
            }
        }
        #expect(ClientRequest.ops.count == Op.allCases.count)
    }
}
