public import StepwiseJSON

/// The latest reported status of one instance on one device (last write wins per
/// (device, instance) by the report's `timestamp`).
public struct InstanceStatusRecord: Sendable, Hashable {
    /// The reporting device.
    public var deviceID: String
    /// The device's tenant.
    public var tenant: TenantID
    /// The instance's id.
    public var instanceID: String
    /// Its sequence's name.
    public var sequenceName: String
    /// Its sequence's version, when reported.
    public var sequenceVersion: Int64?
    /// The capitalised instance state (`Running`, `Waiting`, …).
    public var state: String
    /// The current step's block id, if any.
    public var currentStep: String?
    /// The current step's handler, if any.
    public var handler: String?
    /// The `steps` array as reported: one object per block with `block_id`, `block_type`,
    /// `state`, `handler`, `started_at`, `completed_at`.
    public var steps: JSONValue
    /// The instance's error, when reported (any JSON value; `null` when none).
    public var error: JSONValue
    /// The parent instance, for sub-sequences.
    public var parentInstanceID: String?
    /// The report's `timestamp` (ms since the epoch): the time of the latest change it carries.
    public var reportedAt: Int64
    /// When the server stored it.
    public var updatedAt: Int64

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - deviceID: the reporting device.
    ///   - tenant: its tenant.
    ///   - instanceID: the instance.
    ///   - sequenceName: its sequence.
    ///   - sequenceVersion: its version.
    ///   - state: the instance state.
    ///   - currentStep: the current step.
    ///   - handler: the current handler.
    ///   - steps: the step timeline.
    ///   - error: the error, or `null`.
    ///   - parentInstanceID: the parent instance.
    ///   - reportedAt: the report's timestamp.
    ///   - updatedAt: the server's time of storing.
    public init(
        deviceID: String, tenant: TenantID, instanceID: String, sequenceName: String, sequenceVersion: Int64?,
        state: String, currentStep: String?, handler: String?, steps: JSONValue, error: JSONValue,
        parentInstanceID: String?, reportedAt: Int64, updatedAt: Int64
    ) {
        self.deviceID = deviceID
        self.tenant = tenant
        self.instanceID = instanceID
        self.sequenceName = sequenceName
        self.sequenceVersion = sequenceVersion
        self.state = state
        self.currentStep = currentStep
        self.handler = handler
        self.steps = steps
        self.error = error
        self.parentInstanceID = parentInstanceID
        self.reportedAt = reportedAt
        self.updatedAt = updatedAt
    }

    /// The `GET /mobile/status` item: `device_id`, `instance_id`, `sequence_name`, `state`,
    /// `current_step`, `handler`, `steps`, `error`, `updated_at`, plus the extensions
    /// `sequence_version`, `parent_instance_id` and `timestamp` (the device's time).
    public var json: JSONValue {
        [
            "device_id": .string(deviceID), "instance_id": .string(instanceID), "sequence_name": .string(sequenceName),
            "sequence_version": sequenceVersion.map(JSONValue.integer) ?? .null, "state": .string(state),
            "current_step": currentStep.map(JSONValue.string) ?? .null, "handler": handler.map(JSONValue.string) ?? .null,
            "steps": steps, "error": error, "parent_instance_id": parentInstanceID.map(JSONValue.string) ?? .null,
            "timestamp": .string(ServerTime.format(reportedAt)), "updated_at": .string(ServerTime.format(updatedAt)),
        ]
    }
}
