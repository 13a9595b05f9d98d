public import StepwiseJSON

/// The kinds of outbox rows (SYNC.md §2.2).
public enum OutboxKind: String, Sendable, Hashable, CaseIterable {
    /// One row per instance; its payload is built when a request is assembled.
    case status
    /// One row per open wait.
    case approval
    /// One row per delegated attempt.
    case delegation
    /// One row per finished command id.
    case ack
    /// One row per finished command id, with its outcome.
    case result
}

/// One outbox row as stored.
public struct OutboxRow: Sendable, Hashable {
    /// The kind.
    public let kind: OutboxKind
    /// The unique key within the kind.
    public let key: String
    /// The instance concerned, when any.
    public let instanceID: InstanceID?
    /// Bumped by every change (status rows).
    public let generation: Int64
    /// The row's payload (approvals, delegations, results).
    public let payload: JSONValue
    /// When it was first queued, Unix ms.
    public let createdAt: Int64

    /// Creates a row.
    public init(kind: OutboxKind, key: String, instanceID: InstanceID?, generation: Int64, payload: JSONValue, createdAt: Int64) {
        self.kind = kind
        self.key = key
        self.instanceID = instanceID
        self.generation = generation
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// An outbox change written in the same transaction as the transition that caused it.
public enum OutboxWrite: Sendable, Hashable {
    /// Bump (or create) the status row of an instance.
    case touchStatus(InstanceID)
    /// Queue a row (approval, delegation, ack, result); an existing row with the key is replaced.
    case put(OutboxRow)
    /// Delete a row; for status rows only if its generation is still `generation`.
    case delete(kind: OutboxKind, key: String, generation: Int64?)
    /// Record that a command id was executed with an outcome.
    case marker(commandID: String, outcome: String)
}
