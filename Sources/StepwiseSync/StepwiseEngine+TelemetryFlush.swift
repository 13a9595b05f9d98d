public import Foundation
public import StepwiseExecution
import StepwiseJSON

/// What a telemetry flush did.
public struct FlushResult: Sendable, Hashable {
    /// Events sent and acknowledged.
    public let sent: Int
    /// Events still buffered.
    public let remaining: Int
    /// Creates a result.
    public init(sent: Int, remaining: Int) {
        self.sent = sent
        self.remaining = remaining
    }
}

extension StepwiseEngine {
    /// Sends the oldest ≤ 500 telemetry events (SYNC.md §4) to `endpoint` (or `telemetryUrl`)
    /// with the channel headers; a 2xx deletes exactly the sent events.
    ///
    /// - Throws: ``StepwiseError`` `invalidInput` (no endpoint, or not https), `network`,
    ///   `unauthorized`, `storage`, `shutdown`.
    public func flushTelemetry(
        endpoint: URL? = nil, transport: any SyncHTTPTransport = URLSessionSyncTransport()
    ) async throws(StepwiseError) -> FlushResult
    {
        try checkOpen()
        guard let url = endpoint ?? URL(string: configuration.telemetryUrl), !(endpoint == nil && configuration.telemetryUrl.isEmpty)
        else { throw StepwiseError(.invalidInput, "no telemetry endpoint given and telemetryUrl is empty") }
        if let refusal = TransportPolicy(allowInsecureLocalhost: configuration.allowInsecureLocalhost).refusal(for: url) {
            throw StepwiseError(.invalidInput, "the telemetry endpoint: \(refusal)")
        }
        let batch = try pendingTelemetry(limit: 500)
        guard !batch.events.isEmpty else { return FlushResult(sent: 0, remaining: 0) }
        let device = try deviceContext() ?? DeviceContext()
        // The device id the channel sends: configured, else the one generated and kept on the
        // first sync (never an empty header).
        let deviceID = await SyncChannel.deviceID(of: self)
        var deviceJSON = device.jsonValue(environment: configuration.environment)
        if device.deviceId.isEmpty, case .object(var o) = deviceJSON {
            o["device_id"] = .string(deviceID)
            deviceJSON = .object(o)
        }
        let body: JSONValue = ["events": .array(batch.events), "device": deviceJSON]
        var headers = ["content-type": "application/json", "x-device-id": deviceID]
        if !configuration.syncApiKey.isEmpty { headers["x-api-key"] = configuration.syncApiKey }
        let status: Int
        do {
            (status, _) = try await transport.post(url, headers: headers, body: JSONWriter.bytes(body), timeoutMs: configuration.operationTimeoutMs)
        } catch {
            if let error = error as? StepwiseError { throw error }
            // Whatever the transport threw (offline, a timeout, a refused body) is a network
            // failure to the host: the events stay and are sent by a later flush.
            throw StepwiseError(.network, "cannot send telemetry: \(SyncChannel.describe(error))")
        }
        if status == 401 || status == 403 { throw StepwiseError(.unauthorized, "telemetry answered HTTP \(status)") }
        guard (200..<300).contains(status) else { throw StepwiseError(.network, "telemetry answered HTTP \(status)") }
        try confirmTelemetry(through: batch.throughSequence)
        return FlushResult(sent: batch.events.count, remaining: batch.remaining)
    }
}
