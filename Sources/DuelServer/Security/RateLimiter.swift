/// A token bucket per connection: `burst` messages at once, refilled at `perSecond`.
///
/// Messages over the limit get `rate_limited`; a connection that keeps flooding
/// (more than `floodLimit` refusals with no second-long pause between two of
/// them) is closed with 1008. A message let through by a refilled token does not
/// end the flood: only a pause does.
struct RateLimiter {
    var perSecond: Double = 20
    var burst: Double = 40
    var floodLimit = 100
    private var tokens: Double = 40
    private var lastMs: Int64 = 0
    private(set) var refusedInARow = 0
    private var lastRefusalMs: Int64 = 0

    enum Verdict { case allow, refuse, close }

    init(perSecond: Double = 20, burst: Double = 40, floodLimit: Int = 100) {
        self.perSecond = perSecond
        self.burst = burst
        self.floodLimit = floodLimit
        tokens = burst
    }

    mutating func take(nowMs: Int64) -> Verdict {
        if lastMs > 0 {
            tokens = min(burst, tokens + Double(max(0, nowMs - lastMs)) * perSecond / 1_000)
        }
        lastMs = nowMs
        if tokens >= 1 {
            tokens -= 1
            return .allow
        }
        if nowMs - lastRefusalMs > 1_000 { refusedInARow = 0 }
        lastRefusalMs = nowMs
        refusedInARow += 1
        return refusedInARow > floodLimit ? .close : .refuse
    }
}

/// Failed logins per username and per address: after `maxFailures` within the
/// window, further attempts are `rate_limited` until the window has passed.
/// In memory, per instance: a restart forgets, which only helps the attacker a little.
struct LoginThrottle {
    var maxFailures = 5
    var windowMs: Int64 = 5 * 60 * 1_000
    private var failures: [String: [Int64]] = [:]

    func isBlocked(username: String, address: String, nowMs: Int64) -> Bool {
        count("u:" + username.lowercased(), nowMs) >= maxFailures || count("a:" + address, nowMs) >= maxFailures * 4
    }

    mutating func recordFailure(username: String, address: String, nowMs: Int64) {
        for key in ["u:" + username.lowercased(), "a:" + address] {
            failures[key, default: []].append(nowMs)
            failures[key]!.removeAll { $0 < nowMs - windowMs }
        }
        if failures.count > 10_000 { failures = failures.filter { $0.value.contains { $0 >= nowMs - windowMs } } }
    }

    mutating func recordSuccess(username: String) {
        failures["u:" + username.lowercased()] = nil
    }

    private func count(_ key: String, _ nowMs: Int64) -> Int {
        failures[key]?.filter { $0 >= nowMs - windowMs }.count ?? 0
    }
}
