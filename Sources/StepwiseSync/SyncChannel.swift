public import Foundation
public import StepwiseExecution
import StepwiseJSON

/// The device side of the sync channel (SYNC.md §2): assembles requests from the outbox, posts
/// them, deletes what a 2xx acknowledged, executes the returned commands exactly once, and keeps
/// the schedule (server hint, power multiplier, heartbeat, failure backoff, push).
///
/// Its state lives in the engine's database, so schedule and push flags survive restarts.
public struct SyncChannel: SyncChannelDriver {
    /// The sync endpoint.
    public let syncURL: URL
    /// The device registration endpoint (`devices/register` next to the sync URL).
    public let registerURL: URL
    /// Sent as `x-api-key` when not empty.
    public let apiKey: String
    /// Per-request timeout.
    public let timeoutMs: UInt64
    /// The transport.
    public let transport: any SyncHTTPTransport
    /// The platform reported at registration.
    public let platform: String
    /// The app version reported at registration.
    public let appVersion: String

    /// Creates a channel.
    ///
    /// - Throws: ``StepwiseError`` `invalidInput` when the URL is not https (or loopback http
    ///   with `allowInsecureLocalhost`).
    public init(
        configuration: EngineConfiguration, transport: any SyncHTTPTransport = URLSessionSyncTransport(),
        platform: String = SyncChannel.currentPlatform, appVersion: String = ""
    ) throws(StepwiseError) {
        guard let url = URL(string: configuration.syncUrl), url.scheme != nil else {
            throw StepwiseError(.invalidInput, "syncUrl is not a URL")
        }
        // The transport rules of SYNC.md §1: https to a public host; loopback (over http too)
        // only with allowInsecureLocalhost; private addresses never.
        if let refusal = TransportPolicy(allowInsecureLocalhost: configuration.allowInsecureLocalhost).refusal(for: url) {
            throw StepwiseError(.invalidInput, "syncUrl: \(refusal)")
        }
        syncURL = url
        // `devices/register` resolved against syncUrl (RFC 3986): the last path segment is
        // replaced (kept when the path ends with "/"), the query dropped.
        registerURL = URL(string: "devices/register", relativeTo: url)?.absoluteURL
            ?? url.deletingLastPathComponent().appendingPathComponent("devices").appendingPathComponent("register")
        apiKey = configuration.syncApiKey
        timeoutMs = configuration.operationTimeoutMs
        self.transport = transport
        self.platform = platform
        self.appVersion = appVersion
    }

    /// `ios`, `android`, `macos` or `linux`.
    public static var currentPlatform: String {
        #if os(iOS)
        "ios"
        #elseif os(macOS)
        "macos"
        #elseif os(Android)
        "android"
        #else
        "linux"
        #endif
    }

    enum Key {
        static let lastAttempt = "sync.last_attempt_at"
        static let interval = "sync.interval_secs"
        static let failures = "sync.failures"
        static let lastHadCommands = "sync.last_had_commands"
        static let pushes = StepwiseEngine.pushCountKey
        /// The push count when the latest round trip started: later pushes make one due now.
        static let pushesAttempted = "sync.push_count_attempted"
        static let deviceID = "sync.device_id"
        static let registered = "sync.registered"
        static let pushToken = "sync.push_token"
    }

    func value(_ engine: StepwiseEngine, _ key: String) async -> String? {
        (try? await engine.storedValue(key)).flatMap { $0 }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The configured device id, or one generated once and persisted.
    public func deviceID(_ engine: StepwiseEngine) async -> String {
        await Self.deviceID(of: engine)
    }

    /// The device id an engine's sync traffic (channel and telemetry) carries: the configured
    /// `deviceId`, else one generated once and kept in the database.
    public static func deviceID(of engine: StepwiseEngine) async -> String {
        let configured = engine.configuration.deviceId
        if !configured.isEmpty { return configured }
        if let stored = (try? await engine.storedValue(Key.deviceID)).flatMap({ $0 }), !stored.isEmpty { return stored }
        let generated = UUID().uuidString.lowercased()
        try? await engine.storeValues([(Key.deviceID, generated)])
        return generated
    }

    public func nextDue(for engine: StepwiseEngine) async -> Int64? {
        let now = engine.now()
        guard let last = await value(engine, Key.lastAttempt).flatMap(Int64.init) else { return now }
        let pushes = await value(engine, Key.pushes).flatMap(Int64.init) ?? 0
        if pushes > (await value(engine, Key.pushesAttempted).flatMap(Int64.init) ?? 0) { return now }
        let hint = await value(engine, Key.interval).flatMap(Int64.init) ?? 30
        let multiplier = Int64(await engine.powerMultiplier())
        var interval = min(max(hint, 5), 3600) * multiplier * 1000
        let failures = await value(engine, Key.failures).flatMap { Int($0) } ?? 0
        if failures > 0 {
            let backoff = interval * (1 << min(failures, 20))
            interval = min(backoff, max(interval, 3_600_000))
            return last + interval
        }
        let idle = (try? await engine.activeInstances().isEmpty) ?? false
        let hadCommands = await value(engine, Key.lastHadCommands) == "1"
        let empty = (try? await engine.outboxIsEmpty()) ?? false
        if idle && empty && !hadCommands { interval = max(interval, 600_000) }
        return last + interval
    }

    public func roundTrip(for engine: StepwiseEngine, deadline: ContinuousClock.Instant?) async -> ChannelSyncResult {
        var result = ChannelSyncResult()
        // Past its deadline already: no attempt at all (an attempt without a request would count
        // as a success and reset the failure backoff).
        guard requestTimeout(before: deadline) != nil else {
            result.finishedAt = engine.now()
            return result
        }
        // The pushes this round trip serves: those received before it starts. One received while
        // it is out leaves the count above this mark, so another round trip follows (§2.10).
        let pushes = await value(engine, Key.pushes) ?? "0"
        try? await engine.storeValues([(Key.lastAttempt, String(engine.now())), (Key.pushesAttempted, pushes)])
        let device = await deviceID(engine)
        var headers = ["content-type": "application/json", "x-device-id": device]
        if !apiKey.isEmpty { headers["x-api-key"] = apiKey }
        do {
            if let warning = try await registerIfNeeded(engine, device: device, headers: headers, deadline: deadline) {
                result.warnings.append(warning)
            }
            var hadCommands = false
            for _ in 0..<10 {
                // Past the deadline (or cancelled by shutdown), no further request starts; what
                // remains goes with the next round trip.
                guard !Task.isCancelled, let timeout = requestTimeout(before: deadline) else { break }
                let draft = try await engine.draftSyncRequest(deviceID: device)
                let (status, body) = try await transport.post(
                    syncURL, headers: headers, body: JSONWriter.bytes(draft.body), timeoutMs: timeout)
                result.requests += 1
                result.httpStatus = status
                guard (200..<300).contains(status) else {
                    throw StepwiseError(
                        status == 401 || status == 403 ? .unauthorized : .network,
                        "sync answered HTTP \(status)\(Self.explanation(in: body))")
                }
                let response: SyncResponse
                do { response = try SyncResponse(decoding: body) } catch { throw error.stepwiseError }
                result.warnings += response.warnings
                try await engine.confirmSyncDelivery(draft.sent)
                result.rowsDelivered += draft.sent.count
                let interval = response.intervalSeconds
                result.intervalSeconds = interval
                try? await engine.storeValues([(Key.interval, String(interval))])
                // The heartbeat looks at the last response only (§2.10). Skipped commands cannot be
                // acked and ignored ones come again: both still count as "the server had commands",
                // as every element of `commands` did before.
                hadCommands = response.receivedCommands > 0
                var repeated = 0
                for command in response.commandValues {
                    let outcome = await engine.executeSyncCommand(command)
                    let what = "command \(outcome.id.map(SyncResponse.shown) ?? "?") (\(command["type"]?.stringValue.map(SyncResponse.shown) ?? "?"))"
                    switch outcome.kind {
                    case .done, .rejected:
                        // A redelivery of a command that already ran: acknowledged again, not run.
                        if outcome.wasAlreadyExecuted {
                            repeated += 1
                            continue
                        }
                        result.commandsExecuted += 1
                        if outcome.kind == .rejected { result.warnings.append("\(what) rejected: \(outcome.error ?? "refused")") }
                    case .retry:
                        result.warnings.append("\(what) not run now, the server delivers it again: \(outcome.error ?? "transient problem")")
                    case .skipped:
                        break
                    }
                }
                if repeated > 0 {
                    result.warnings.append("\(repeated) command(s) delivered again had already run: acknowledged again, not run twice")
                }
                // Another request follows at once only when rows remain (§2.2): rows this one
                // could not take, rows whose generation changed while it was out, or the acks and
                // results of the commands just executed. Commands that wrote nothing (skipped, or
                // a transient failure the server re-delivers) would only come back again.
                if try await engine.outboxIsEmpty() { break }
            }
            try? await engine.storeValues([(Key.failures, "0"), (Key.lastHadCommands, hadCommands ? "1" : "0")])
        } catch {
            let failures = (await value(engine, Key.failures).flatMap(Int.init) ?? 0) + 1
            try? await engine.storeValues([(Key.failures, String(failures))])
            result.error = Self.describe(error)
        }
        result.finishedAt = engine.now()
        return result
    }

    /// The timeout of a request starting now: `timeoutMs`, cut to what is left before
    /// `deadline`; `nil` once the deadline has passed.
    func requestTimeout(before deadline: ContinuousClock.Instant?) -> UInt64? {
        guard let deadline else { return timeoutMs }
        let left = (deadline - ContinuousClock.now) / .milliseconds(1)
        guard left > 0 else { return nil }
        return left >= Double(timeoutMs) ? timeoutMs : max(UInt64(left.rounded(.up)), 1)
    }

    /// Registers the device before its first request and whenever what it reports changed
    /// (§2.9); returns a warning when the server answered 409 (the id is registered to another
    /// device: reported, the sync goes on).
    func registerIfNeeded(
        _ engine: StepwiseEngine, device: String, headers: [String: String], deadline: ContinuousClock.Instant?
    ) async throws -> String? {
        let token = await value(engine, Key.pushToken)
        let platform = await value(engine, "sync.platform") ?? self.platform
        // The app's version as given to the channel, else as the host set it in its device
        // context (`setDeviceContext`): a new version registers again.
        var version = appVersion
        if version.isEmpty, let context = try? await engine.deviceContext() { version = context.appVersion }
        var body: JSONObject = [
            "device_id": .string(device), "platform": .string(platform), "app_version": .string(version),
        ]
        body["push_token"] = token.map(JSONValue.string) ?? .null
        let fingerprint = JSONWriter.string(.object(body), options: .sortedKeys)
        if await value(engine, Key.registered) == fingerprint { return nil }
        guard let timeout = requestTimeout(before: deadline) else {
            throw StepwiseError(.timeout, "no time left to register the device before the deadline")
        }
        let (status, answer) = try await transport.post(registerURL, headers: headers, body: JSONWriter.bytes(.object(body)), timeoutMs: timeout)
        if (200..<300).contains(status) {
            try? await engine.storeValues([(Key.registered, fingerprint)])
            return nil
        }
        if status == 409 {
            // Not stored as registered: the next sync tries again (the server may free the id).
            return "device registration answered HTTP 409\(Self.explanation(in: answer)): device id \(device) is registered to another device; syncing anyway"
        }
        throw StepwiseError(
            status == 401 || status == 403 ? .unauthorized : .network,
            "device registration answered HTTP \(status)\(Self.explanation(in: answer))")
    }

    /// `" (MESSAGE)"` when an error response's body is the server's `{"error": MESSAGE}` (SYNC.md
    /// §5), else empty: the server says why (an unregistered device, a full tenant), which the
    /// status alone does not. Control characters are dropped and the message is cut at 200
    /// characters (a hostile or broken server cannot flood a log line).
    static func explanation(in body: [UInt8]) -> String {
        guard body.count <= 64 * 1024, case .object(let object)? = try? JSONParser.parse(body),
            case .string(let message)? = object["error"]
        else { return "" }
        var shown = String(String.UnicodeScalarView(message.unicodeScalars.filter { $0.properties.generalCategory != .control }))
            .trimmingCharacters(in: .whitespaces)
        guard !shown.isEmpty else { return "" }
        if shown.count > 200 { shown = String(shown.prefix(200)) + "…" }
        return " (\(shown))"
    }

    /// An error message without URLs (they may carry tokens).
    static func describe(_ error: any Error) -> String {
        if let e = error as? StepwiseError { return e.message }
        if let e = error as? FetchError { return e.message }
        if error is URLError { return "network error: \(CappedHTTPExchange.describe(error))" }
        return "network error"
    }
}
