public import StepwiseJSON

/// An approval request from a device's `wait_for_input` step (SYNC.md §2.3), as stored.
///
/// At most one approval per (device, instance, block) is pending at a time: a duplicate
/// request while one is pending is ignored.
public struct ApprovalRecord: Sendable, Hashable {
    /// The server's id for it (a UUID).
    public var id: String
    /// The requesting device.
    public var deviceID: String
    /// Its tenant.
    public var tenant: TenantID
    /// The waiting instance.
    public var instanceID: String
    /// The waiting step's block id.
    public var blockID: String
    /// The instance's sequence, when sent.
    public var sequenceName: String?
    /// The prompt shown to whoever resolves it.
    public var prompt: String?
    /// The allowed choices (`[{"label", "value"}]`), or `null` for free input.
    public var choices: JSONValue
    /// Where the device stores the answer, or `nil`.
    public var storeAs: String?
    /// The wait's timeout in seconds, or `nil`.
    public var timeoutSeconds: Int64?
    /// The request's `metadata` object (wait id, handler, iteration, since), or `null`.
    public var metadata: JSONValue
    /// Its state.
    public var state: ApprovalState
    /// The output it was resolved with, or `null`.
    public var resolution: JSONValue
    /// The `complete_step` command that resolving it queued, if any.
    public var commandID: String?
    /// When it was received.
    public var createdAt: Int64
    /// When it expires if still pending.
    public var expiresAt: Int64
    /// When it was resolved.
    public var resolvedAt: Int64?

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - id: the server's id.
    ///   - deviceID: the device.
    ///   - tenant: its tenant.
    ///   - instanceID: the instance.
    ///   - blockID: the step.
    ///   - sequenceName: the sequence.
    ///   - prompt: the prompt.
    ///   - choices: the choices or `null`.
    ///   - storeAs: the context key.
    ///   - timeoutSeconds: the wait's timeout.
    ///   - metadata: the metadata object or `null`.
    ///   - state: the state.
    ///   - resolution: the output or `null`.
    ///   - commandID: the queued command.
    ///   - createdAt: receive time.
    ///   - expiresAt: expiry time.
    ///   - resolvedAt: resolve time.
    public init(
        id: String, deviceID: String, tenant: TenantID, instanceID: String, blockID: String, sequenceName: String?,
        prompt: String?, choices: JSONValue, storeAs: String?, timeoutSeconds: Int64?, metadata: JSONValue,
        state: ApprovalState = .pending, resolution: JSONValue = .null, commandID: String? = nil, createdAt: Int64,
        expiresAt: Int64, resolvedAt: Int64? = nil
    ) {
        self.id = id
        self.deviceID = deviceID
        self.tenant = tenant
        self.instanceID = instanceID
        self.blockID = blockID
        self.sequenceName = sequenceName
        self.prompt = prompt
        self.choices = choices
        self.storeAs = storeAs
        self.timeoutSeconds = timeoutSeconds
        self.metadata = metadata
        self.state = state
        self.resolution = resolution
        self.commandID = commandID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.resolvedAt = resolvedAt
    }

    /// The allowed `value`s of ``choices``; empty when any output is allowed.
    public var choiceValues: [JSONValue] {
        choices.arrayValue?.compactMap { $0["value"] } ?? []
    }

    /// The `GET /mobile/approvals` item: `id`, `device_id`, `tenant_id`, `instance_id`,
    /// `block_id`, `sequence_name`, `prompt`, `choices`, `store_as`, `timeout_secs`, `metadata`,
    /// `state`, `resolution`, `created_at`, `resolved_at`, plus the extensions `expires_at` and
    /// `command_id`.
    public var json: JSONValue {
        [
            "id": .string(id), "device_id": .string(deviceID), "tenant_id": .string(tenant.rawValue),
            "instance_id": .string(instanceID), "block_id": .string(blockID),
            "sequence_name": sequenceName.map(JSONValue.string) ?? .null, "prompt": prompt.map(JSONValue.string) ?? .null,
            "choices": choices, "store_as": storeAs.map(JSONValue.string) ?? .null,
            "timeout_secs": timeoutSeconds.map(JSONValue.integer) ?? .null, "metadata": metadata,
            "state": .string(state.rawValue), "resolution": resolution,
            "created_at": .string(ServerTime.format(createdAt)),
            "resolved_at": resolvedAt.map { .string(ServerTime.format($0)) } ?? .null,
            "expires_at": .string(ServerTime.format(expiresAt)), "command_id": commandID.map(JSONValue.string) ?? .null,
        ]
    }
}
