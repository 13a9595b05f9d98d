/// The lifecycle state of an approval.
public enum ApprovalState: String, Sendable, Hashable, CaseIterable {
    /// Waiting for someone to resolve it.
    case pending
    /// Resolved: a `complete_step` command was queued.
    case resolved
    /// Not resolved before its `timeout_seconds` (or the approval TTL) ran out.
    case expired
}
