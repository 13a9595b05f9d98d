/// A wake-up for one waiter that is never lost: a signal sent while nobody waits is kept for
/// the next wait. The engine's run loop and its listener delivery each sleep on one; used on
/// the engine actor only.
final class WakeSignal {
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?

    /// Whether a signal came that no wait has taken yet.
    var isPending: Bool { pending }

    /// Wakes the waiter, or keeps the signal for the next wait.
    func signal() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            pending = true
        }
    }

    /// Forgets a signal no wait has taken.
    func clear() { pending = false }

    /// Returns at once when a signal is pending, else at the next one.
    ///
    /// The pending signal is checked inside the continuation's body: entering
    /// `withCheckedContinuation` can hop executors, and a signal sent in that gap must not be
    /// lost (it was, and stalled the run loop).
    func wait(isolation: isolated (any Actor)? = #isolation) async {
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
            if pending {
                pending = false
                continuation.resume()
            } else {
                waiter = continuation
            }
        }
    }
}
