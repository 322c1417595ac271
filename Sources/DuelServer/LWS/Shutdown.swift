import Foundation
import Synchronization

/// The flags ``LWSServer/stop()`` raises from another thread, read on the loop's wake-up.
final class Shutdown: Sendable {
    /// Close every client with 1001 at the next wake-up.
    let closeAll = Mutex(false)
    /// Break the loop at the next wake-up.
    let stopping = Mutex(false)
    /// Signalled by the service thread once its loop returned.
    let stopped = DispatchSemaphore(value: 0)
}
