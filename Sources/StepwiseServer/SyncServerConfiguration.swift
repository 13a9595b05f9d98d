/// The reference server's limits and policies (SYNC.md §5, "Server configuration").
///
/// ```swift
/// var configuration = SyncServerConfiguration()
/// configuration.maxDevicesPerTenant = 50
/// configuration.commandTTLSeconds = 24 * 3600
/// ```
public struct SyncServerConfiguration: Sendable, Hashable {
    /// How long a command may wait for its acknowledgement; expired commands are never
    /// delivered. Default 7 days.
    public var commandTTLSeconds: Int64 = 7 * 86_400
    /// How long an approval without `timeout_seconds` stays pending. Default 1 day.
    public var approvalTTLSeconds: Int64 = 86_400
    /// The most devices a tenant may register (409 beyond). Default 1000.
    public var maxDevicesPerTenant: Int = 1000
    /// The largest request body accepted (413 beyond). Default 8 MiB.
    public var maxBodyBytes: Int = 8 << 20
    /// The most items any request array may hold (400 beyond). Default 500.
    public var maxArrayItems: Int = 500
    /// The most commands one sync response carries. Default 50.
    public var maxCommandsPerSync: Int = 50
    /// `sync_interval_secs` while the device has pending commands. Default 5.
    public var busySyncIntervalSeconds: Int = 5
    /// `sync_interval_secs` otherwise. Default 30.
    public var idleSyncIntervalSeconds: Int = 30
    /// The `limit` of list endpoints when none is given. Default 100.
    public var defaultListLimit: Int = 100
    /// The largest `limit` of list endpoints. Default 500.
    public var maxListLimit: Int = 500
    /// How sync responses encode commands. Default ``CommandFormat/nested``.
    public var commandFormat: CommandFormat = .nested
    /// How long acknowledged or expired commands, finished approvals and answered delegations
    /// are kept before pruning. Default 30 days.
    public var retentionSeconds: Int64 = 30 * 86_400
    /// The most telemetry events kept per tenant. Default 10 000.
    public var maxTelemetryEventsPerTenant: Int = 10_000

    /// The defaults of SYNC.md §5.
    public init() {}
}
