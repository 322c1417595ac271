import DuelCore

/// A refusal the client should see as a protocol error (`unknown_bank`, `in_duel`...).
///
/// Queries throw this for rule violations they detect; everything else is a
/// ``PGError``, which the server reports as `unavailable` or `internal`.
public struct StoreError: Error, Sendable, Equatable {
    public let error: ProtocolError

    public init(_ code: ErrorCode, _ message: String? = nil) {
        error = ProtocolError(code, message)
    }
}

/// Milliseconds since 1970 for a `timestamptz` column, computed by Postgres.
enum SQLTime {
    /// SQL expression turning timestamptz column `column` into epoch milliseconds.
    static func ms(_ column: String) -> String {
        "(extract(epoch FROM \(column)) * 1000)::bigint"
    }
}
