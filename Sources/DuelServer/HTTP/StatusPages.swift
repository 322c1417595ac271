import DuelStore

/// Plain HTTP on the server's port: `/healthz`, `/livez`, `/readyz`, `/metrics` and the web
/// client's files (``HTTPRouter``), with the figures of the parts that know them. lws thread only.
final class StatusPages: @unchecked Sendable {
    private let router: HTTPRouter
    private let connections: ConnectionTable
    private let metrics: Metrics
    private let periodic: PeriodicJobs
    private let timer: DeadlineTimer
    private let delivery: DuelDelivery
    private let lanes: DuelLanes

    init(router: HTTPRouter, connections: ConnectionTable, metrics: Metrics, periodic: PeriodicJobs,
         timer: DeadlineTimer, delivery: DuelDelivery, lanes: DuelLanes) {
        self.router = router
        self.connections = connections
        self.metrics = metrics
        self.periodic = periodic
        self.timer = timer
        self.delivery = delivery
        self.lanes = lanes
    }

    func response(path: String, accepting: Bool) -> HTTPResponse {
        router.response(path: path, HTTPRouter.Figures(
            health: periodic.health, nowMs: Clock.nowMs(), accepting: accepting,
            metrics: { [self] in
                metrics.render(
                    connections: connections.count, playersOnline: connections.directory.playerCount,
                    timers: timer.count, trackedDuels: delivery.book.trackedCount, lanes: lanes.statistics)
            }))
    }
}
