public import StepwiseJSON

/// The record of a root instance that ended `failed` (SEMANTICS §6.7).
public struct DeadLetter: Sendable, Hashable {
    /// The record's id.
    public let id: String
    /// The failed instance.
    public let instanceId: InstanceID
    /// Its sequence name.
    public let sequenceName: String
    /// Its pinned version.
    public let sequenceVersion: Int
    /// The block where the failure originated.
    public let blockId: String?
    /// The handler of that block, when it is a step.
    public let handler: String?
    /// The instance error.
    public let error: InstanceError
    /// Attempts made by the failing step.
    public let attempts: Int
    /// When the instance failed, Unix ms.
    public let failedAt: Int64
    /// Whether a person or tool acknowledged it.
    public var acknowledged: Bool
    /// When it was acknowledged, Unix ms.
    public var acknowledgedAt: Int64?
    /// When the instance was redriven, Unix ms.
    public var redrivenAt: Int64?

    /// Creates a record.
    public init(
        id: String, instanceId: InstanceID, sequenceName: String, sequenceVersion: Int, blockId: String?,
        handler: String?, error: InstanceError, attempts: Int, failedAt: Int64, acknowledged: Bool = false,
        acknowledgedAt: Int64? = nil, redrivenAt: Int64? = nil
    ) {
        self.id = id
        self.instanceId = instanceId
        self.sequenceName = sequenceName
        self.sequenceVersion = sequenceVersion
        self.blockId = blockId
        self.handler = handler
        self.error = error
        self.attempts = attempts
        self.failedAt = failedAt
        self.acknowledged = acknowledged
        self.acknowledgedAt = acknowledgedAt
        self.redrivenAt = redrivenAt
    }

    /// The record as JSON (for `--json` output and sync).
    public var jsonValue: JSONValue {
        var o: JSONObject = [
            "id": .string(id), "instance_id": .string(instanceId.rawValue), "sequence_name": .string(sequenceName),
            "sequence_version": .integer(Int64(sequenceVersion)), "error": error.jsonValue,
            "attempts": .integer(Int64(attempts)), "failed_at": .string(Timestamp.rfc3339(failedAt)),
            "acknowledged": .bool(acknowledged),
        ]
        o["block_id"] = blockId.map(JSONValue.string) ?? .null
        o["handler"] = handler.map(JSONValue.string) ?? .null
        o["acknowledged_at"] = acknowledgedAt.map { .string(Timestamp.rfc3339($0)) } ?? .null
        o["redriven_at"] = redrivenAt.map { .string(Timestamp.rfc3339($0)) } ?? .null
        return .object(o)
    }
}
