/// Where a queued command is in its delivery.
public enum CommandState: String, Sendable, Hashable, CaseIterable {
    /// Not delivered yet.
    case queued
    /// Delivered at least once, not acknowledged: delivered again on the next sync.
    case delivered
    /// Acknowledged by the device (its result may say `done` or `rejected`).
    case acked
    /// Its TTL ran out before an acknowledgement: never delivered again.
    case expired
}
