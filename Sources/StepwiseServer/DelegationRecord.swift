/// A step delegation (`step_delegations`, SYNC.md §2.8) and the `step_result` command that
/// answers it.
///
/// The record keeps no secrets: resolved credentials live only in the command's
/// ``NewCommand/sealedPayload``.
public struct DelegationRecord: Sendable, Hashable {
    /// The device's request id; one answer per (device, request id).
    public var requestID: String
    /// The delegating instance.
    public var instanceID: String
    /// The delegating step's block id.
    public var blockID: String
    /// Its handler, if sent.
    public var handler: String?
    /// Whether every `credentials://` reference resolved.
    public var succeeded: Bool
    /// Why resolution failed, if it did.
    public var error: String?
    /// The `step_result` command to queue.
    public var command: NewCommand

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - requestID: the device's request id.
    ///   - instanceID: the instance.
    ///   - blockID: the step.
    ///   - handler: the handler.
    ///   - succeeded: whether resolution succeeded.
    ///   - error: the failure message.
    ///   - command: the answering command.
    public init(
        requestID: String, instanceID: String, blockID: String, handler: String?, succeeded: Bool, error: String?,
        command: NewCommand
    ) {
        self.requestID = requestID
        self.instanceID = instanceID
        self.blockID = blockID
        self.handler = handler
        self.succeeded = succeeded
        self.error = error
        self.command = command
    }
}
