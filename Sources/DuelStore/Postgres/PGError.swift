/// An error from Postgres or libpq, translated at the boundary (no libpq types escape).
public struct PGError: Error, Sendable, CustomStringConvertible {
    /// The SQLSTATE (`23505`...), or nil for client-side failures such as a lost connection.
    public let sqlState: String?
    public let message: String
    public let detail: String?
    /// The violated constraint's name, for constraint violations.
    public let constraint: String?

    public init(sqlState: String?, message: String, detail: String? = nil, constraint: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }

    /// A client-side failure (no SQLSTATE): usually the connection is gone.
    public static func client(_ message: String) -> PGError {
        PGError(sqlState: nil, message: message)
    }

    public var description: String {
        var text = sqlState.map { "[\($0)] " } ?? ""
        text += message
        if let detail { text += " (\(detail))" }
        return text
    }

    /// Whether the connection should be considered broken and replaced.
    public var isConnectionFailure: Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    /// Whether retrying the whole transaction may succeed.
    public var isRetryable: Bool {
        sqlState == PGError.Code.serializationFailure || sqlState == PGError.Code.deadlockDetected
    }

    /// The SQLSTATEs the store acts on.
    public enum Code {
        public static let uniqueViolation = "23505"
        public static let foreignKeyViolation = "23503"
        public static let checkViolation = "23514"
        public static let serializationFailure = "40001"
        public static let deadlockDetected = "40P01"
        public static let invalidParameterValue = "22023"
        public static let noDataFound = "P0002"
        public static let raiseException = "P0001"
    }
}
