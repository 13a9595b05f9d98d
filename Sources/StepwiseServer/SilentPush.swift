public import StepwiseJSON

/// A content-free "sync now" push to one device.
///
/// It carries no command and no data: the device wakes and syncs, and the sync response is the
/// single source of truth. ``apnsPayload`` and ``fcmMessage`` are the exact bodies a real
/// sender posts.
public struct SilentPush: Sendable, Hashable {
    /// The device's tenant.
    public var tenant: TenantID
    /// The device.
    public var deviceID: String
    /// Its platform (`ios`, `android`, …).
    public var platform: String
    /// Its push token.
    public var token: String
    /// Why the push is sent (for logs): the queued command's id.
    public var commandID: String

    /// Creates a push.
    ///
    /// - Parameters:
    ///   - tenant: the tenant.
    ///   - deviceID: the device.
    ///   - platform: its platform.
    ///   - token: its push token.
    ///   - commandID: the command that caused it.
    public init(tenant: TenantID, deviceID: String, platform: String, token: String, commandID: String) {
        self.tenant = tenant
        self.deviceID = deviceID
        self.platform = platform
        self.token = token
        self.commandID = commandID
    }

    /// The APNs body: `{"aps": {"content-available": 1}}` (sent with `apns-push-type:
    /// background` and `apns-priority: 5`; no alert, badge or sound).
    public static var apnsPayload: JSONValue { ["aps": ["content-available": 1]] }

    /// The FCM HTTP v1 body: a data-only message with no `notification` block.
    public var fcmMessage: JSONValue {
        ["message": ["token": .string(token), "data": ["stepwise": "sync"], "android": ["priority": "high"]]]
    }

    /// The token shortened for logs: `…` and its last 6 characters.
    public var redactedToken: String {
        token.count <= 6 ? "…" : "…" + token.suffix(6)
    }
}
