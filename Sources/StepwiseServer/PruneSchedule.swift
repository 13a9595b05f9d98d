import Synchronization

/// When the store was last pruned (shared by copies of a ``SyncServer``).
final class PruneSchedule: Sendable {
    private let last = Mutex<Int64>(Int64.min)

    /// Whether a prune is due at `now`; if so, records `now` as the last prune.
    func claim(now: Int64, interval: Int64) -> Bool {
        last.withLock { last in
            guard last == Int64.min || now - last >= interval else { return false }
            last = now
            return true
        }
    }
}
