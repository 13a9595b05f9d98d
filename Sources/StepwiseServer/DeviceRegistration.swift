/// The body of `POST /mobile/devices/register` (SYNC.md §2.9).
///
/// ```swift
/// let registration = DeviceRegistration(deviceID: "7d1e…", platform: "ios", appVersion: "1.4.0", pushToken: nil)
/// ```
public struct DeviceRegistration: Sendable, Hashable {
    /// The device's id, unique across tenants.
    public var deviceID: String
    /// `ios`, `android`, `macos`, `linux` (other names are stored as given).
    public var platform: String
    /// The host app's version, if sent.
    public var appVersion: String?
    /// The push token; `nil` clears a stored one.
    public var pushToken: String?

    /// Creates a registration.
    ///
    /// - Parameters:
    ///   - deviceID: the device's id.
    ///   - platform: its platform name.
    ///   - appVersion: the host app's version.
    ///   - pushToken: the APNs or FCM token, if any.
    public init(deviceID: String, platform: String, appVersion: String? = nil, pushToken: String? = nil) {
        self.deviceID = deviceID
        self.platform = platform
        self.appVersion = appVersion
        self.pushToken = pushToken
    }
}
