/// Plain HTTP on the WebSocket port: the probes, `/metrics`, and the web client's files.
/// It decides from what it is handed; the core hands it its figures.
struct HTTPRouter {
    let files: StaticFiles

    /// What the probes and `/metrics` read, gathered by the core at request time.
    struct Figures {
        var health: HealthStatus
        var nowMs: Int64
        var accepting: Bool
        var metrics: () -> String
    }

    func response(path: String, _ figures: Figures) -> HTTPResponse {
        switch path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path {
        case "/healthz":
            let (status, body) = figures.health.response(nowMs: figures.nowMs)
            return .text(status, body, type: "application/json")
        case "/livez":
            // The loop answered, so the process serves; the database is /readyz's business.
            return .text(200, #"{"status":"ok"}"#, type: "application/json")
        case "/readyz":
            let (status, body) = figures.health.readiness(nowMs: figures.nowMs, accepting: figures.accepting)
            return .text(status, body, type: "application/json")
        case "/metrics":
            return .text(200, figures.metrics(), type: "text/plain; version=0.0.4")
        default:
            if let (file, type) = files.resolve(path) {
                return HTTPResponse(status: 200, contentType: type, body: [], file: file)
            }
            return .text(404, "not found\n")
        }
    }
}
