public import StepwiseJSON

/// Durable storage of the reference sync server: tenants and API keys, devices, instance
/// statuses, approvals, commands, delegations and telemetry.
///
/// The store holds no policy beyond what must be atomic: the server decides ids, expiry times
/// and validation, and hands the store complete values. Each method is one transaction, so
/// everything one HTTP request writes commits or rolls back together. Every query is scoped to
/// a tenant; an object of another tenant is reported as absent.
///
/// ``SQLiteSyncServerStore`` is the implementation here; a PostgreSQL store would implement the
/// same protocol.
///
/// ```swift
/// let store = try SQLiteSyncServerStore(path: "server.db")
/// try await store.addAPIKey("k-123", grant: .tenant(.defaultTenant), now: clock.now())
/// let server = SyncServer(store: store)
/// ```
///
/// Every method throws ``SyncServerError``: ``SyncServerError/Code/storage`` when the
/// database fails, and the codes named by each method.
public protocol SyncServerStore: Sendable {
    // MARK: Tenants, keys, settings

    /// Stores an API key (by its SHA-256, never in clear), creating its tenant if needed.
    /// Adding a known key again replaces its grant.
    ///
    /// - Parameters:
    ///   - key: the key as clients send it in `x-api-key`.
    ///   - grant: what it allows.
    ///   - now: the current time.
    func addAPIKey(_ key: String, grant: APIKeyGrant, now: Int64) async throws(SyncServerError)

    /// What `key` allows, or `nil` for an unknown key.
    ///
    /// - Parameter key: the key as sent.
    /// - Returns: its grant.
    func grant(forAPIKey key: String) async throws(SyncServerError) -> APIKeyGrant?

    /// Whether a tenant exists (has or had a key).
    ///
    /// - Parameter tenant: the tenant.
    /// - Returns: `true` when known.
    func tenantExists(_ tenant: TenantID) async throws(SyncServerError) -> Bool

    /// A server setting (for example the generated API key), or `nil`.
    ///
    /// - Parameter name: the setting's name.
    /// - Returns: its value.
    func setting(_ name: String) async throws(SyncServerError) -> String?

    /// Stores a server setting.
    ///
    /// - Parameters:
    ///   - name: the setting's name.
    ///   - value: its value.
    func setSetting(_ name: String, value: String) async throws(SyncServerError)

    // MARK: Devices

    /// Registers a device with its tenant, or updates its platform, app version and push token.
    ///
    /// - Parameters:
    ///   - registration: the device's data.
    ///   - tenant: the caller's tenant.
    ///   - maxDevices: the most devices a tenant may have.
    ///   - now: the current time.
    /// - Returns: whether the device is new.
    /// - Throws: ``SyncServerError/Code/conflict`` when the id belongs to another tenant or a
    ///   new device would exceed `maxDevices`.
    func registerDevice(_ registration: DeviceRegistration, tenant: TenantID, maxDevices: Int, now: Int64)
        async throws(SyncServerError) -> RegistrationOutcome

    /// A device of the tenant, or `nil`.
    ///
    /// - Parameters:
    ///   - deviceID: the device.
    ///   - tenant: the caller's tenant.
    /// - Returns: the device.
    func device(_ deviceID: String, tenant: TenantID) async throws(SyncServerError) -> DeviceRecord?

    /// The tenant's devices, most recently registered first.
    ///
    /// - Parameters:
    ///   - tenant: the tenant.
    ///   - limit: the most items.
    /// - Returns: a page.
    func devices(tenant: TenantID, limit: Int) async throws(SyncServerError) -> ServerPage<DeviceRecord>

    // MARK: Sync

    /// Applies one sync request and picks the commands to deliver, in one transaction.
    ///
    /// Expires due approvals first. See ``SyncBatch`` for the order of writes.
    ///
    /// - Parameters:
    ///   - batch: the request's writes.
    ///   - now: the current time.
    /// - Returns: the commands to send and how many are pending.
    /// - Throws: ``SyncServerError/Code/notFound`` when the device is not registered to the
    ///   batch's tenant (nothing is written).
    func applySync(_ batch: SyncBatch, now: Int64) async throws(SyncServerError) -> SyncDelivery

    // MARK: Statuses

    /// The tenant's instance statuses, most recently updated first.
    ///
    /// - Parameters:
    ///   - tenant: the tenant.
    ///   - deviceID: only this device's, when given.
    ///   - limit: the most items.
    /// - Returns: a page.
    func statuses(tenant: TenantID, deviceID: String?, limit: Int) async throws(SyncServerError)
        -> ServerPage<InstanceStatusRecord>

    /// Whether a device ever reported an instance (by status or approval request).
    ///
    /// - Parameters:
    ///   - instanceID: the instance.
    ///   - deviceID: the device.
    ///   - tenant: the tenant.
    /// - Returns: `true` when it did.
    func hasReported(instanceID: String, deviceID: String, tenant: TenantID) async throws(SyncServerError) -> Bool

    // MARK: Approvals

    /// The tenant's approvals, newest first; due approvals are expired first.
    ///
    /// - Parameters:
    ///   - tenant: the tenant.
    ///   - state: only this state, when given.
    ///   - deviceID: only this device's, when given.
    ///   - limit: the most items.
    ///   - now: the current time.
    /// - Returns: a page.
    func approvals(tenant: TenantID, state: ApprovalState?, deviceID: String?, limit: Int, now: Int64)
        async throws(SyncServerError) -> ServerPage<ApprovalRecord>

    /// One approval of the tenant (expiring it first if due), or `nil`.
    ///
    /// - Parameters:
    ///   - id: the approval id.
    ///   - tenant: the tenant.
    ///   - now: the current time.
    /// - Returns: the approval.
    func approval(_ id: String, tenant: TenantID, now: Int64) async throws(SyncServerError) -> ApprovalRecord?

    /// Marks a pending approval resolved with `resolution` and queues `command`, atomically.
    ///
    /// - Parameters:
    ///   - id: the approval id.
    ///   - tenant: the tenant.
    ///   - resolution: the output it was resolved with.
    ///   - command: the `complete_step` command to queue.
    ///   - now: the current time.
    /// - Returns: `false`, writing nothing, when the approval is not pending (any more) or not
    ///   the tenant's.
    func resolveApproval(_ id: String, tenant: TenantID, resolution: JSONValue, command: NewCommand, now: Int64)
        async throws(SyncServerError) -> Bool

    // MARK: Commands

    /// Queues a command; a `complete_step` also resolves the pending approval of its
    /// (device, instance, block) with its output, if there is one.
    ///
    /// - Parameters:
    ///   - command: the command.
    ///   - resolving: the (instance, block) whose pending approval it answers, and the output.
    ///   - now: the current time.
    func enqueueCommand(_ command: NewCommand, resolving: (instanceID: String, blockID: String, output: JSONValue)?, now: Int64)
        async throws(SyncServerError)

    /// The tenant's commands, newest first.
    ///
    /// - Parameters:
    ///   - tenant: the tenant.
    ///   - deviceID: only this device's, when given.
    ///   - limit: the most items.
    /// - Returns: a page.
    func commands(tenant: TenantID, deviceID: String?, limit: Int) async throws(SyncServerError) -> ServerPage<CommandRecord>

    // MARK: Telemetry

    /// Stores telemetry events, keeping at most `keep` per tenant (oldest dropped).
    ///
    /// - Parameters:
    ///   - events: the events.
    ///   - keep: the most events kept per tenant.
    func recordTelemetry(_ events: [TelemetryEvent], keep: Int) async throws(SyncServerError)

    /// The tenant's telemetry events, newest first.
    ///
    /// - Parameters:
    ///   - tenant: the tenant.
    ///   - limit: the most items.
    /// - Returns: a page.
    func telemetry(tenant: TenantID, limit: Int) async throws(SyncServerError) -> ServerPage<TelemetryEvent>

    // MARK: Housekeeping

    /// Expires due approvals and deletes acknowledged or expired commands, finished approvals
    /// and answered delegations older than `cutoff`.
    ///
    /// - Parameters:
    ///   - now: the current time (for expiry).
    ///   - cutoff: rows whose last change is older than this are deleted.
    func prune(now: Int64, cutoff: Int64) async throws(SyncServerError)
}
