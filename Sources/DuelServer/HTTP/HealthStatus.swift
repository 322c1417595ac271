import DuelCore

/// What the health job learned: what `/healthz` says (200 while the job reached the database
/// within the last `freshForMs`, else 503 with the reason), and whether other instances run.
/// Pure; the health job records, HTTP and the sweep's timer read.
struct HealthStatus {
    let freshForMs: Int64
    private var ok = false
    private var atMs: Int64 = 0
    private var reason = "not checked yet"
    /// When the job last saw another instance alive or reaped a dead one (the start counts as
    /// a sighting).
    private var peersSeenAtMs: Int64

    init(freshForMs: Int64 = 5_000, startMs: Int64 = 0) {
        self.freshForMs = freshForMs
        peersSeenAtMs = startMs
    }

    mutating func sawPeers(atMs: Int64) {
        peersSeenAtMs = atMs
    }

    /// Whether this instance has been the only one for 30 s. The sweep then runs at
    /// `aloneSweepIntervalMs` (issue 25): it finds deadlines that no timer here holds, and alone
    /// every live duel's timer is here, rearmed at start and after the LISTEN connection came
    /// back. A dead instance's duels are found within the 30 s, at the sweep's usual interval
    /// (the health job sees the instance until it is reaped), and are this instance's from then on.
    func isAlone(nowMs: Int64) -> Bool {
        nowMs - peersSeenAtMs > 30_000
    }

    mutating func record(ok: Bool, reason: String, atMs: Int64) {
        self.ok = ok
        self.reason = reason
        self.atMs = atMs
    }

    func response(nowMs: Int64) -> (status: UInt32, body: String) {
        let fresh = nowMs - atMs < freshForMs
        if ok && fresh { return (200, #"{"status":"ok","database":"ok"}"#) }
        let why = atMs == 0 ? "starting" : fresh ? reason : "database not checked for \((nowMs - atMs) / 1_000) s"
        return (503, JSONValue.object(["status": "unavailable", "reason": .string(why)]).serialized)
    }

    /// `/readyz`: the database answered lately and the server takes new connections (below its
    /// connection cap), so a load balancer may send players here.
    func readiness(nowMs: Int64, accepting: Bool) -> (status: UInt32, body: String) {
        let database = response(nowMs: nowMs)
        guard database.status == 200 else { return database }
        guard accepting else {
            return (503, #"{"status":"unavailable","reason":"at the connection cap"}"#)
        }
        return (200, #"{"status":"ready","database":"ok"}"#)
    }
}
