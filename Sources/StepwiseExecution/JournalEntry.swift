public import StepwiseJSON

/// One append-only history record: what happened to an instance, in commit order.
///
/// The journal is the instance's history (every attempt with its params, output or error, every
/// completeStep payload) and the source of listener events, delivered from a persisted cursor.
public struct JournalEntry: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A handler attempt was dispatched (payload: params, key, handler).
        case stepStarted = "step_started"
        /// An attempt succeeded (payload: output).
        case stepSucceeded = "step_succeeded"
        /// An attempt failed (payload: error, will_retry).
        case stepFailed = "step_failed"
        /// A step node completed (payload: output when any).
        case stepCompleted = "step_completed"
        /// A wait opened (payload: prompt, choices, store_as, timeout_at, wait_id, handler).
        case stepPending = "step_pending"
        /// An attempt's `credentials://` params went to the sync server (payload: request_id,
        /// handler, the unresolved params, key).
        case stepDelegated = "step_delegated"
        /// A wait was completed (payload: the completeStep payload and value).
        case inputReceived = "input_received"
        /// A step was skipped by its `when`.
        case stepSkipped = "step_skipped"
        /// The instance completed (payload: data).
        case instanceCompleted = "instance_completed"
        /// The instance failed (payload: error).
        case instanceFailed = "instance_failed"
        /// The instance was cancelled.
        case instanceCancelled = "instance_cancelled"
        /// A hook list failed (payload: error); the instance state is unchanged.
        case hookFailed = "hook_failed"
        /// The instance was redriven.
        case instanceRedriven = "instance_redriven"
        /// The instance started (payload: sequence name and version).
        case instanceStarted = "instance_started"
        /// A signed manifest was applied (payload: manifest_version and the counts), recorded
        /// under ``InstanceID/engine`` for telemetry.
        case manifestApplied = "manifest_applied"
    }

    /// Global, increasing sequence number (assigned by the store).
    public var sequence: Int64
    /// The instance.
    public let instance: InstanceID
    /// The node, when the entry concerns one.
    public let node: NodeID?
    /// What happened.
    public let kind: Kind
    /// The step's block id, when the entry concerns a step.
    public let stepID: String?
    /// The attempt number, when relevant.
    public let attempt: Int?
    /// When, Unix ms.
    public let at: Int64
    /// Details.
    public let payload: JSONValue

    /// Creates an entry (the store assigns `sequence`).
    public init(
        sequence: Int64 = 0, instance: InstanceID, node: NodeID?, kind: Kind, stepID: String?, attempt: Int?,
        at: Int64, payload: JSONValue
    ) {
        self.sequence = sequence
        self.instance = instance
        self.node = node
        self.kind = kind
        self.stepID = stepID
        self.attempt = attempt
        self.at = at
        self.payload = payload
    }
}
