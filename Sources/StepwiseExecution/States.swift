/// The state of an instance (SEMANTICS §2.1).
public enum InstanceState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// At least one handler is in flight.
    case running
    /// Runnable now, or a delay/backoff/poll timer is pending.
    case scheduled
    /// Blocked on something external (input, a child, device conditions, a handler registration).
    case waiting
    /// Paused by signal.
    case paused
    /// Finished successfully.
    case completed
    /// Finished with a failure.
    case failed
    /// Cancelled.
    case cancelled

    /// Whether the state never changes again (except a redrive of `failed`).
    public var isTerminal: Bool { self == .completed || self == .failed || self == .cancelled }

    public var description: String { rawValue }
}

/// The state of one node of the execution tree (SEMANTICS §2.1).
public enum NodeState: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not started.
    case pending
    /// Started (including delay, backoff and poll timers).
    case running
    /// Blocked on something external.
    case waiting
    /// Finished successfully.
    case completed
    /// Finished with a failure.
    case failed
    /// Cancelled.
    case cancelled
    /// Not run (a false `when`, a branch not chosen); counts as success.
    case skipped

    /// Whether the node has finished.
    public var isTerminal: Bool {
        switch self {
        case .completed, .failed, .cancelled, .skipped: true
        case .pending, .running, .waiting: false
        }
    }

    /// Whether the node finished successfully (completed or skipped).
    public var isSuccess: Bool { self == .completed || self == .skipped }

    public var description: String { rawValue }
}
