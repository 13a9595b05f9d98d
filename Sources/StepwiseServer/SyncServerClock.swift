import Foundation

/// Where the server reads the time: command TTLs, approval expiry, `last_sync_at` and every
/// stored timestamp come from here.
///
/// Tests inject a clock they move by hand, so expiry is tested without waiting:
///
/// ```swift
/// final class ManualClock: SyncServerClock {
///     let value = Mutex<Int64>(1_700_000_000_000)
///     func now() -> Int64 { value.withLock { $0 } }
/// }
/// ```
public protocol SyncServerClock: Sendable {
    /// The current time in milliseconds since the Unix epoch (UTC).
    func now() -> Int64
}

/// The system's wall clock.
public struct SystemSyncServerClock: SyncServerClock {
    /// Creates the clock.
    public init() {}

    /// The current time in milliseconds since the Unix epoch.
    public func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}
