/// The login throttle's bounds (PROTOCOL.md: failed logins).
public struct LoginLimits: Sendable {
    public var perUsername = 5
    public var perAddress = 20
    public var windowSeconds = 300
    public init() {}
}
