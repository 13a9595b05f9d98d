import Foundation
import Synchronization

/// The engine's source of time: Unix milliseconds and a cancellable sleep.
///
/// Inject a ``VirtualClock`` in tests so nothing ever really sleeps.
public protocol EngineClock: Sendable {
    /// The current time, Unix ms.
    func now() -> Int64
    /// Suspends until `deadline` (Unix ms).
    ///
    /// - Throws: `CancellationError` when the task is cancelled. Nothing else.
    func sleep(until deadline: Int64) async throws
}

/// The wall clock.
public struct SystemClock: EngineClock {
    /// Creates the wall clock.
    public init() {}

    public func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    public func sleep(until deadline: Int64) async throws {
        let (delay, overflow) = deadline.subtractingReportingOverflow(now())
        guard overflow ? deadline > 0 : delay > 0 else { return }
        // Saturated: a deadline centuries away sleeps as long as a UInt64 of nanoseconds allows.
        let (nanoseconds, tooFar) = UInt64(overflow ? Int64.max : delay).multipliedReportingOverflow(by: 1_000_000)
        try await Task.sleep(nanoseconds: tooFar ? .max : nanoseconds)
    }
}

/// A clock whose time moves only when told to; sleepers wake when it passes their deadline.
public final class VirtualClock: EngineClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: Int64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Int64
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let state: Mutex<State>

    /// A clock starting at `start` (Unix ms).
    public init(start: Int64 = 0) { state = Mutex(State(now: start)) }

    public func now() -> Int64 { state.withLock { $0.now } }

    public func sleep(until deadline: Int64) async throws {
        let id = state.withLock { s -> UInt64 in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { s -> Bool in
                    if deadline <= s.now { return true }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Number of tasks sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest sleeper deadline, if any.
    public var nextDeadline: Int64? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Moves time forward to `time` (never backwards) and wakes every sleeper due by then.
    public func advance(to time: Int64) {
        let due = state.withLock { s -> [Sleeper] in
            if time > s.now { s.now = time }
            let now = s.now
            let ready = s.sleepers.filter { $0.deadline <= now }
            s.sleepers.removeAll { $0.deadline <= now }
            return ready
        }
        for sleeper in due.sorted(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) { sleeper.continuation.resume() }
    }
}
