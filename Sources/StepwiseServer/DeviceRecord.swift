public import StepwiseJSON

/// A registered device, as the store keeps it.
///
/// The push token is kept for push delivery only: ``json`` reports `has_push_token` and
/// never the token (SYNC.md §5).
public struct DeviceRecord: Sendable, Hashable {
    /// The device's id.
    public var deviceID: String
    /// Its tenant.
    public var tenant: TenantID
    /// Its platform name.
    public var platform: String
    /// The host app's version, if registered.
    public var appVersion: String?
    /// The push token, if any. Never returned by the API.
    public var pushToken: String?
    /// Whether the device is active (a registration activates it).
    public var isActive: Bool
    /// When it first registered (ms since the epoch).
    public var registeredAt: Int64
    /// When its last sync request was processed, if ever.
    public var lastSyncAt: Int64?

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - deviceID: the device's id.
    ///   - tenant: its tenant.
    ///   - platform: its platform name.
    ///   - appVersion: the host app's version.
    ///   - pushToken: the push token.
    ///   - isActive: whether it is active.
    ///   - registeredAt: first registration time.
    ///   - lastSyncAt: last sync time.
    public init(
        deviceID: String, tenant: TenantID, platform: String, appVersion: String?, pushToken: String?, isActive: Bool,
        registeredAt: Int64, lastSyncAt: Int64?
    ) {
        self.deviceID = deviceID
        self.tenant = tenant
        self.platform = platform
        self.appVersion = appVersion
        self.pushToken = pushToken
        self.isActive = isActive
        self.registeredAt = registeredAt
        self.lastSyncAt = lastSyncAt
    }

    /// The `GET /mobile/devices` item: `device_id`, `tenant_id`, `platform`, `app_version`,
    /// `active`, `has_push_token`, `last_sync_at`, `registered_at`.
    public var json: JSONValue {
        [
            "device_id": .string(deviceID), "tenant_id": .string(tenant.rawValue), "platform": .string(platform),
            "app_version": appVersion.map(JSONValue.string) ?? .null, "active": .bool(isActive),
            "has_push_token": .bool(!(pushToken ?? "").isEmpty),
            "last_sync_at": lastSyncAt.map { .string(ServerTime.format($0)) } ?? .null,
            "registered_at": .string(ServerTime.format(registeredAt)),
        ]
    }
}
