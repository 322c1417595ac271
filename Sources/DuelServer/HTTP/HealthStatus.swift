import DuelCore

/// What `/healthz` says: 200 while the health job reached the database within the last
/// `freshForMs`, else 503 with the reason. Pure; the health job records, HTTP reads.
struct HealthStatus {
    let freshForMs: Int64
    private var ok = false
    private var atMs: Int64 = 0
    private var reason = "not checked yet"

    init(freshForMs: Int64 = 5_000) {
        self.freshForMs = freshForMs
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
