import DuelCore

/// What the login throttle says of an attempt (``PlayerRepository/loginAttempt(username:address:limits:)``).
public enum LoginAttempt: Sendable {
    /// Too many recent failures for the username or the address.
    case throttled
    /// Go on: verify the password against these credentials (nil: no such player).
    case proceed((id: PlayerID, passwordHash: String)?)
}
