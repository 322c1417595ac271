import DuelCore

/// Turns a connection's measured round trip into the lag its player's live duel credits
/// (issue 26): after each pong, the ``LagPolicy`` lag, reported as a `lag` input when it moved
/// by ``LagPolicy/reportStepMs``. The duel's engine does the rest. lws thread only.
///
/// A player with two connections reports from both, the last report winning: the duel
/// credits one lag per player, and both connections are theirs.
final class LagReports {
    private let policy: LagPolicy
    private let delivery: DuelDelivery

    init(policy: LagPolicy, delivery: DuelDelivery) {
        self.policy = policy
        self.delivery = delivery
    }

    func measured(_ connection: Connection, kernelRttUs: UInt32?) {
        guard policy.isOn, let duel = connection.probe.duel, let player = connection.player,
              let estimate = connection.probe.estimate.estimateMs else { return }
        let lag = policy.lag(estimateMs: estimate, kernelRttUs: kernelRttUs)
        guard policy.shouldReport(lag, reported: connection.probe.reported) else { return }
        connection.probe.reported = lag
        delivery.submitAndApply(.lag(player: player, lagMs: lag, atMs: Clock.nowMs()), to: duel)
    }
}
