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
