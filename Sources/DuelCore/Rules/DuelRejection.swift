/// Why the engine refused an input; the input changed nothing.
public struct DuelRejection: Error, Sendable, Equatable {
    public let code: ErrorCode
    public let message: String

    public init(_ code: ErrorCode, _ message: String? = nil) {
        self.code = code
        self.message = message ?? code.defaultMessage
    }
}
