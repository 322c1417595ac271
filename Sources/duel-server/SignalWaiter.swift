import Foundation

/// Blocks the main thread until SIGTERM or SIGINT, without a C signal handler
/// (signals are blocked and taken synchronously with sigwait).
enum SignalWaiter {
    static func waitForTermination() -> Int32 {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        var received: Int32 = 0
        sigwait(&set, &received)
        return received
    }

    /// Blocks the signals in this thread and every thread started after it, so
    /// only ``waitForTermination()`` receives them. Call first thing in main.
    static func blockTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}

func fflushStandardOutput() {
    fflush(nil)
}
