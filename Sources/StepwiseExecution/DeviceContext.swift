public import StepwiseJSON

/// What the host tells the engine about the device, persisted and sent with telemetry
/// (SEMANTICS §6.6).
public struct DeviceContext: Sendable, Hashable {
    /// The device id (empty: the sync channel's id is used).
    public var deviceId: String
    /// `iOS`, `Android`, `macOS`, `Linux`, …
    public var osName: String
    /// The OS version.
    public var osVersion: String
    /// The host app's version.
    public var appVersion: String
    /// The SDK version (defaults to the package version).
    public var sdkVersion: String

    /// Creates a context.
    public init(
        deviceId: String = "", osName: String = "", osVersion: String = "", appVersion: String = "",
        sdkVersion: String = StepwiseVersion.current
    ) {
        self.deviceId = deviceId
        self.osName = osName
        self.osVersion = osVersion
        self.appVersion = appVersion
        self.sdkVersion = sdkVersion
    }

    /// The telemetry `device` object (SYNC.md §4).
    public func jsonValue(environment: String) -> JSONValue {
        [
            "device_id": .string(deviceId), "os_name": .string(osName), "os_version": .string(osVersion),
            "app_version": .string(appVersion), "sdk_version": .string(sdkVersion), "environment": .string(environment),
        ]
    }
}

extension StepwiseEngine {
    static let deviceContextKey = "device.context"

    /// Persists the device context (sent with telemetry).
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    public func setDeviceContext(_ context: DeviceContext) throws(StepwiseError) {
        try checkOpen()
        try storeValues([(Self.deviceContextKey, JSONWriter.string(context.jsonValue(environment: configuration.environment)))])
    }

    /// The persisted device context, if any.
    ///
    /// - Throws: ``StepwiseError`` `storage`.
    public func deviceContext() throws(StepwiseError) -> DeviceContext? {
        try checkOpen()
        guard let text = try store.metadata(Self.deviceContextKey), let json = try? JSONParser.parse(text) else { return nil }
        return DeviceContext(
            deviceId: json["device_id"]?.stringValue ?? "", osName: json["os_name"]?.stringValue ?? "",
            osVersion: json["os_version"]?.stringValue ?? "", appVersion: json["app_version"]?.stringValue ?? "",
            sdkVersion: json["sdk_version"]?.stringValue ?? StepwiseVersion.current)
    }
}
