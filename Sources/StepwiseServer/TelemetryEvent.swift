public import StepwiseJSON

/// One telemetry event a device flushed (SYNC.md §4).
public struct TelemetryEvent: Sendable, Hashable {
    /// The sending device.
    public var deviceID: String
    /// Its tenant.
    public var tenant: TenantID
    /// `instance_started`, `step_failed`, …
    public var eventType: String
    /// The event's payload as sent (JSON text or a JSON value).
    public var payload: JSONValue
    /// The event's `timestamp` as sent.
    public var timestamp: String
    /// When the server received it.
    public var receivedAt: Int64

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - deviceID: the device.
    ///   - tenant: its tenant.
    ///   - eventType: the event type.
    ///   - payload: the payload.
    ///   - timestamp: the device's timestamp.
    ///   - receivedAt: receive time.
    public init(deviceID: String, tenant: TenantID, eventType: String, payload: JSONValue, timestamp: String, receivedAt: Int64) {
        self.deviceID = deviceID
        self.tenant = tenant
        self.eventType = eventType
        self.payload = payload
        self.timestamp = timestamp
        self.receivedAt = receivedAt
    }
}
