public import StepwiseJSON

/// A command to queue for one device.
///
/// A command whose payload carries secrets (a `step_result` with `resolved_params`) keeps them
/// only in ``sealedPayload``, encrypted by ``SecretSealer``; ``payload`` then holds the same
/// object without them, for listings.
///
/// ```swift
/// let command = NewCommand(
///     id: ServerIdentifier.make(), tenant: tenant, deviceID: "d1", type: "cancel_instance",
///     payload: ["instance_id": "4f1c…"], createdAt: now, expiresAt: now + 7 * 86_400_000)
/// ```
public struct NewCommand: Sendable, Hashable {
    /// The command id the device acks.
    public var id: String
    /// The device's tenant.
    public var tenant: TenantID
    /// The device that receives it.
    public var deviceID: String
    /// The command type (`complete_step`, `cancel_instance`, …; SYNC.md §2.5).
    public var type: String
    /// The payload, free of secrets.
    public var payload: JSONValue
    /// The whole payload encrypted, when it carries secrets; delivered instead of ``payload``.
    public var sealedPayload: [UInt8]?
    /// When it was queued.
    public var createdAt: Int64
    /// After this instant it is never delivered.
    public var expiresAt: Int64

    /// Creates a command.
    ///
    /// - Parameters:
    ///   - id: its id.
    ///   - tenant: the tenant.
    ///   - deviceID: the receiving device.
    ///   - type: the command type.
    ///   - payload: the secret-free payload.
    ///   - sealedPayload: the encrypted full payload, if it has secrets.
    ///   - createdAt: queue time.
    ///   - expiresAt: expiry time.
    public init(
        id: String, tenant: TenantID, deviceID: String, type: String, payload: JSONValue, sealedPayload: [UInt8]? = nil,
        createdAt: Int64, expiresAt: Int64
    ) {
        self.id = id
        self.tenant = tenant
        self.deviceID = deviceID
        self.type = type
        self.payload = payload
        self.sealedPayload = sealedPayload
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
