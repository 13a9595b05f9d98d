import Foundation
import Stepwise
import Synchronization
import Testing

/// A scripted sync server in memory: records requests, answers from a queue.
final class ScriptedTransport: SyncHTTPTransport {
    struct Request {
        let url: String
        let headers: [String: String]
        let body: JSONValue
    }
    let state = Mutex<(requests: [Request], answers: [Result<(Int, JSONValue), URLError>])>(([], []))
    /// What device registration answers.
    let registerStatus: Int

    init(registerStatus: Int = 201) { self.registerStatus = registerStatus }

    func answer(_ status: Int, _ body: JSONValue) { state.withLock { $0.answers.append(.success((status, body))) } }
    func fail() { state.withLock { $0.answers.append(.failure(URLError(.notConnectedToInternet))) } }
    var requests: [Request] { state.withLock { $0.requests } }

    func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8]) {
        let next = state.withLock { s -> Result<(Int, JSONValue), URLError> in
            s.requests.append(Request(url: url.absoluteString, headers: headers, body: (try? JSONParser.parse(body)) ?? .null))
            if url.path.hasSuffix("/register") { return .success((registerStatus, .object(JSONObject()))) }
            return s.answers.isEmpty ? .success((200, ["commands": [], "sync_interval_secs": 30])) : s.answers.removeFirst()
        }
        switch next {
        case .success(let (status, json)): return (status, JSONWriter.bytes(json))
        case .failure(let error): throw error
        }
    }
}

private let approval = #"""
    {"name": "approval", "version": 1, "blocks": [
      {"type": "step", "id": "approve", "handler": "noop",
       "wait_for_input": {"prompt": "Approve?", "choices": [{"value": "yes"}, {"value": "no"}], "store_as": "decision"}},
      {"type": "step", "id": "finish", "handler": "noop"}
    ]}
    """#

@Suite("Sync channel: requests from the outbox, commands, schedule (SYNC.md §2)")
struct SyncChannelTests {
    func makeEngine(_ path: String, transport: ScriptedTransport) async throws -> StepwiseEngine {
        var configuration = EngineConfiguration()
        configuration.syncUrl = "https://sync.test/mobile/sync"
        configuration.syncApiKey = "secret"
        configuration.deviceId = "device-7"
        let channel = try SyncChannel(configuration: configuration, transport: transport, appVersion: "1.2")
        let store = try SQLiteExecutionStore(path: path)
        let engine = try StepwiseEngine(store: store, configuration: configuration, syncChannel: channel)
        _ = try await engine.loadSequence(json: Array(approval.utf8))
        return engine
    }

    @Test func approvalRoundTripThroughTheChannel() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("channel-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let transport = ScriptedTransport()
        let engine = try await makeEngine(path, transport: transport)
        let id = try await engine.start("approval")
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 1_000)

        transport.answer(200, [
            "commands": [["id": "c1", "type": "complete_step", "payload": ["instance_id": .string(id.rawValue), "step_name": "approve", "output": ["value": "yes"]]]],
            "sync_interval_secs": 5,
        ])
        let result = try await engine.syncChannel()
        #expect(result.succeeded && result.commandsExecuted == 1 && result.intervalSeconds == 30, "the last response sets the interval")
        let register = try #require(transport.requests.first)
        #expect(register.url == "https://sync.test/mobile/devices/register")
        #expect(register.body["platform"] == "linux" && register.body["app_version"] == "1.2")
        let sync = transport.requests[1]
        #expect(sync.headers["x-api-key"] == "secret" && sync.headers["x-device-id"] == "device-7")
        #expect(sync.body["approval_requests"]?[0]?["block_id"] == "approve")
        #expect(sync.body["status_updates"]?[0]?["state"] == "Waiting")
        // The follow-up request (commands were returned) acknowledges the command.
        #expect(transport.requests[2].body["command_acks"] == ["c1"])
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 1_000)
        #expect(try await engine.instance(id).state == .completed)
        await engine.shutdown()
    }

    @Test func commandsThatWriteNothingDoNotRepeatTheRequest() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("channel-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let transport = ScriptedTransport()
        let engine = try await makeEngine(path, transport: transport)
        // A server that keeps sending an element that is not a command (no id): it cannot be
        // acknowledged, so asking again at once would only bring it back, 10 times a cycle.
        for _ in 0..<10 { transport.answer(200, ["commands": [["type": "cancel_instance"]], "sync_interval_secs": 30]) }
        let result = try await engine.syncChannel()
        #expect(result.succeeded && result.commandsExecuted == 0)
        #expect(result.requests == 1, "one request, not a loop")
        await engine.shutdown()
    }

    @Test func failuresKeepEveryRowAndBackOff() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("channel-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let transport = ScriptedTransport()
        let engine = try await makeEngine(path, transport: transport)
        _ = try await engine.start("approval")
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 1_000)
        transport.fail()
        let failed = try await engine.syncChannel()
        #expect(!failed.succeeded && failed.error == "network error: no network connection (URL error \(URLError.Code.notConnectedToInternet.rawValue))")
        #expect(try await engine.outboxIsEmpty() == false)
        transport.answer(500, ["error": "boom"])
        let serverError = try await engine.syncChannel()
        #expect(serverError.httpStatus == 500 && serverError.rowsDelivered == 0)
        let ok = try await engine.syncChannel()
        #expect(ok.succeeded && ok.rowsDelivered == 2)
        await engine.shutdown()
    }

    @Test func pushTokenTriggersReRegistration() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("channel-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let transport = ScriptedTransport()
        let engine = try await makeEngine(path, transport: transport)
        _ = try await engine.syncChannel()
        _ = try await engine.syncChannel()
        #expect(transport.requests.filter { $0.url.hasSuffix("/register") }.count == 1)
        let other = await #expect(throws: StepwiseError.self) { try await engine.registerPushToken("t", platform: "windows") }
        #expect(other?.code == .invalidInput)
        try await engine.registerPushToken("apns-token", platform: "iOS")
        _ = try await engine.syncChannel()
        let registrations = transport.requests.filter { $0.url.hasSuffix("/register") }
        #expect(registrations.count == 2)
        #expect(registrations.last?.body["push_token"] == "apns-token" && registrations.last?.body["platform"] == "ios")
        await engine.shutdown()
    }
    @Test func theLastRoundTripsOutcomeIsReadableFromTheEngine() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("channel-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        let transport = ScriptedTransport()
        let engine = try await makeEngine(path, transport: transport)
        #expect(await engine.lastChannelSync == nil)
        _ = try await engine.syncChannel()
        let first = try #require(await engine.lastChannelSync)
        #expect(first.httpStatus == 200 && first.error == nil)
        transport.fail()
        _ = try await engine.syncChannel()
        #expect(await engine.lastChannelSync?.error != nil)
        await engine.shutdown()
    }

    /// SYNC.md §2.4 and §2.9: a command without a string id and type is skipped and reported; a
    /// registration refused with 409 is reported, the sync proceeds, and the next one registers again.
    @Test func skippedCommandsAndARefusedRegistrationAreReported() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sync-warn-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        var configuration = EngineConfiguration()
        configuration.syncUrl = "https://sync.test/mobile/sync"
        configuration.deviceId = "device-7"
        let transport = ScriptedTransport(registerStatus: 409)
        let channel = try SyncChannel(configuration: configuration, transport: transport)
        let engine = try StepwiseEngine(store: try SQLiteExecutionStore(path: path), configuration: configuration, syncChannel: channel)
        transport.answer(200, ["commands": [["type": "cancel_instance"], ["id": 7, "type": "complete_step"]], "sync_interval_secs": 30])
        let result = await channel.roundTrip(for: engine)
        #expect(result.error == nil)
        #expect(result.warnings.contains("device registration answered HTTP 409: device id device-7 is registered to another device; syncing anyway"))
        #expect(result.warnings.contains("2 command(s) without a string id and type skipped (cannot be acknowledged)"))
        _ = await channel.roundTrip(for: engine)
        #expect(transport.requests.filter { $0.url.hasSuffix("/devices/register") }.count == 2)
        await engine.shutdown()
    }

    /// SYNC.md §5: an error answer's `{"error": MESSAGE}` is shown with its status (control
    /// characters dropped); a body that is not such an object adds nothing.
    @Test func aRefusedSyncShowsTheServersExplanation() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sync-why-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let transport = ScriptedTransport()
        let engine = try await makeEngine(path, transport: transport)
        transport.answer(404, ["error": "device phone-1 is not registered\u{7}"])
        _ = try await engine.syncChannel()
        #expect(await engine.lastChannelSync?.error == "sync answered HTTP 404 (device phone-1 is not registered)")
        transport.answer(500, ["unexpected": true])
        _ = try await engine.syncChannel()
        #expect(await engine.lastChannelSync?.error == "sync answered HTTP 500")
        await engine.shutdown()
    }

    /// SYNC.md §2.9: `registerUrl` is `devices/register` resolved against `syncUrl` (RFC 3986).
    @Test(arguments: [
        ("https://sync.example/mobile/sync", "https://sync.example/mobile/devices/register"),
        ("https://sync.example/mobile/sync/", "https://sync.example/mobile/sync/devices/register"),
        ("https://sync.example/mobile/sync?tenant=1", "https://sync.example/mobile/devices/register"),
        ("https://sync.example/sync", "https://sync.example/devices/register"),
    ])
    func theRegistrationURLIsResolvedAgainstTheSyncURL(syncURL: String, expected: String) throws {
        var configuration = EngineConfiguration()
        configuration.syncUrl = syncURL
        #expect(try SyncChannel(configuration: configuration).registerURL.absoluteString == expected)
    }
}

@Suite("Telemetry flush (SYNC.md §4)")
struct TelemetryFlushTests {

    @Test func lifecycleEventsAreSentOnceWithTheDevice() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("telemetry-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        var configuration = EngineConfiguration()
        configuration.telemetryUrl = "https://telemetry.test/mobile/telemetry"
        configuration.environment = "staging"
        let engine = try StepwiseEngine(databasePath: path, configuration: configuration)
        let quick = #"{"name": "q", "version": 3, "blocks": [{"type": "step", "id": "s", "handler": "noop"}]}"#
        _ = try await engine.loadSequence(json: Array(quick.utf8))
        try await engine.setDeviceContext(DeviceContext(deviceId: "d9", osName: "iOS", osVersion: "18", appVersion: "1.0"))
        let id = try await engine.start("q")
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 1_000)
        let transport = ScriptedTransport()
        let result = try await engine.flushTelemetry(transport: transport)
        #expect(result == FlushResult(sent: 4, remaining: 0))
        let body = try #require(transport.requests.first?.body)
        #expect(body["events"]?.arrayValue?.compactMap { $0["event_type"]?.stringValue }
            == ["instance_started", "step_started", "step_completed", "instance_completed"])
        let payload = try JSONParser.parse(body["events"]?[1]?["payload"]?.stringValue ?? "")
        #expect(payload["instance_id"] == .string(id.rawValue) && payload["sequence_version"] == 3 && payload["step_id"] == "s")
        #expect(body["device"]?["os_name"] == "iOS" && body["device"]?["environment"] == "staging")
        // Durations: of the attempt for step_completed, of the instance for instance_completed.
        for index in [2, 3] {
            let event = try JSONParser.parse(body["events"]?[index]?["payload"]?.stringValue ?? "")
            #expect(event["duration_ms"]?.exactIntegerValue.map { $0 >= 0 } == true, "event \(index): \(event)")
        }
        #expect(try await engine.flushTelemetry(transport: transport) == FlushResult(sent: 0, remaining: 0))
        await engine.shutdown()
    }

    @Test func telemetryCarriesTheDatabasesDeviceIdWhenNoneIsConfigured() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("telemetry-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        var configuration = EngineConfiguration()
        configuration.telemetryUrl = "https://telemetry.test/mobile/telemetry"
        let engine = try StepwiseEngine(databasePath: path, configuration: configuration)
        _ = try await engine.loadSequence(json: Array(#"{"name": "q", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "noop"}]}"#.utf8))
        _ = try await engine.start("q")
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 1_000)
        let transport = ScriptedTransport()
        _ = try await engine.flushTelemetry(transport: transport)
        let request = try #require(transport.requests.first)
        let header = try #require(request.headers["x-device-id"])
        #expect(!header.isEmpty)
        #expect(request.body["device"]?["device_id"] == .string(header))
        #expect(await SyncChannel.deviceID(of: engine) == header, "the same id every time")
        await engine.shutdown()
    }

    @Test(arguments: ["https://127.0.0.1/mobile/sync", "https://10.0.0.5/mobile/sync", "http://sync.test/mobile/sync"])
    func theChannelFollowsTheTransportRules(_ url: String) {
        var configuration = EngineConfiguration()
        configuration.syncUrl = url
        let error = #expect(throws: StepwiseError.self) { _ = try SyncChannel(configuration: configuration) }
        #expect(error?.code == .invalidInput)
    }
}
