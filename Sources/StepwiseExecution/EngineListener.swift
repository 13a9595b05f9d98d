public import StepwiseJSON

/// Receives engine events (SEMANTICS §2.17): at least once across restarts, in commit order per
/// instance, one at a time, off the caller's thread. Every method has a default that does nothing.
///
/// ```swift
/// struct Approvals: EngineListener {
///     func onStepPending(_ step: PendingStep) async { await ui.showApproval(step) }
/// }
/// await engine.setListener(Approvals())
/// ```
public protocol EngineListener: Sendable {
    /// An instance completed with its final `context.data`.
    func onInstanceCompleted(_ instanceId: InstanceID, data: JSONValue) async
    /// An instance failed with its error message.
    func onInstanceFailed(_ instanceId: InstanceID, error: String) async
    /// An instance was cancelled.
    func onInstanceCancelled(_ instanceId: InstanceID) async
    /// A step opened a `wait_for_input`.
    func onStepPending(_ step: PendingStep) async
    /// A handler attempt started.
    func onStepStarted(_ instanceId: InstanceID, stepId: String, attempt: Int) async
    /// A step completed with its output.
    func onStepCompleted(_ instanceId: InstanceID, stepId: String, output: JSONValue) async
    /// A handler attempt failed; `willRetry` tells whether a retry follows.
    func onStepFailed(_ instanceId: InstanceID, stepId: String, error: String, willRetry: Bool) async
}

extension EngineListener {
    public func onInstanceCompleted(_ instanceId: InstanceID, data: JSONValue) async {}
    public func onInstanceFailed(_ instanceId: InstanceID, error: String) async {}
    public func onInstanceCancelled(_ instanceId: InstanceID) async {}
    public func onStepPending(_ step: PendingStep) async {}
    public func onStepStarted(_ instanceId: InstanceID, stepId: String, attempt: Int) async {}
    public func onStepCompleted(_ instanceId: InstanceID, stepId: String, output: JSONValue) async {}
    public func onStepFailed(_ instanceId: InstanceID, stepId: String, error: String, willRetry: Bool) async {}
}
