/// What expressions see under `runtime.…` (SEMANTICS §3.4).
///
/// ```swift
/// let info = RuntimeInfo(attempt: 1, instanceId: "…", sequenceName: "onboarding")
/// // runtime.attempt == 1, runtime.dry_run == false
/// ```
public struct RuntimeInfo: Sendable, Hashable {
    /// The 0-based attempt number (orch8 counts from 0): `runtime.attempt`.
    public var attempt: Int
    /// The instance id: `runtime.instance_id` and `instance_id`.
    public var instanceId: String
    /// `runtime.sequence_name`.
    public var sequenceName: String
    /// `runtime.sequence_version`.
    public var sequenceVersion: Int
    /// The id of the step being evaluated, if any: `runtime.current_step`.
    public var currentStep: String?
    /// RFC 3339 start of the instance: `runtime.started_at`.
    public var startedAt: String?
    /// RFC 3339 start of the current step: `runtime.current_step_started_at`.
    public var currentStepStartedAt: String?
    /// Handler invocations so far: `runtime.total_steps_executed`.
    public var totalStepsExecuted: Int

    /// Creates runtime information; every field has a neutral default.
    public init(
        attempt: Int = 0,
        instanceId: String = "",
        sequenceName: String = "",
        sequenceVersion: Int = 0,
        currentStep: String? = nil,
        startedAt: String? = nil,
        currentStepStartedAt: String? = nil,
        totalStepsExecuted: Int = 0
    ) {
        self.attempt = attempt
        self.instanceId = instanceId
        self.sequenceName = sequenceName
        self.sequenceVersion = sequenceVersion
        self.currentStep = currentStep
        self.startedAt = startedAt
        self.currentStepStartedAt = currentStepStartedAt
        self.totalStepsExecuted = totalStepsExecuted
    }
}
