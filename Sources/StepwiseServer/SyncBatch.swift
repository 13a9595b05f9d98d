/// Everything one `POST /mobile/sync` request writes, applied by the store in one transaction.
///
/// Build it with validated values; the store applies, in order: status upserts (an update
/// older than the stored one is ignored), approval inserts (skipped while one is pending for
/// the same device, instance and block), delegations with their `step_result` commands (once
/// per request id), acknowledgements and results; then it picks the commands to deliver and
/// stamps the device's `last_sync_at`.
public struct SyncBatch: Sendable {
    /// The caller's tenant.
    public var tenant: TenantID
    /// The syncing device.
    public var deviceID: String
    /// Status updates.
    public var statuses: [InstanceStatusRecord] = []
    /// New approval requests (their ids and expiry already chosen).
    public var approvals: [ApprovalRecord] = []
    /// Delegations and their answers.
    public var delegations: [DelegationRecord] = []
    /// Acknowledged command ids.
    public var acks: [String] = []
    /// Command results.
    public var results: [CommandResult] = []
    /// The most commands to deliver in the response.
    public var deliveryLimit: Int = 50
    /// The most payload bytes to deliver in the response (at least one command goes out
    /// whatever its size): devices refuse sync answers over 4 MiB, and a queue of large
    /// commands must not make every answer too large to take, which would keep them unacked.
    public var deliveryByteLimit: Int = 3 << 20

    /// Creates an empty batch for a device.
    ///
    /// - Parameters:
    ///   - tenant: the tenant.
    ///   - deviceID: the device.
    public init(tenant: TenantID, deviceID: String) {
        self.tenant = tenant
        self.deviceID = deviceID
    }
}
