import Foundation
import Stepwise
import Synchronization
import Testing

private let delegating = #"""
    {"name": "weather", "version": 1, "blocks": [
      {"type": "step", "id": "call_api", "handler": "call_api",
       "params": {"key": "credentials://weather/api_key", "city": "{{ context.data.city }}"}},
      {"type": "step", "id": "after", "handler": "noop"}
    ]}
    """#

/// Records the params each call received.
final class ParamsRecorder: Sendable {
    let calls = Mutex<[JSONValue]>([])
    var received: [JSONValue] { calls.withLock { $0 } }
}

/// `credentials://` params resolved by the sync server (SYNC.md §2.8), device side.
@Suite("Step delegation: credentials:// params (SYNC.md §2.8)")
struct StepDelegationTests {
    final class Database: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("delegation-\(UUID().uuidString).db").path
        deinit { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        /// Every byte SQLite wrote, the WAL included.
        var bytes: Data { ["", "-wal"].reduce(into: Data()) { $0 += FileManager.default.contents(atPath: path + $1) ?? Data() } }
    }

    func makeEngine(
        _ database: Database, transport: ScriptedTransport?, recorder: ParamsRecorder, hang: Bool = false
    ) async throws -> StepwiseEngine {
        var configuration = EngineConfiguration()
        if transport != nil {
            configuration.syncUrl = "https://sync.test/mobile/sync"
            configuration.deviceId = "device-1"
        }
        let channel = try transport.map { try SyncChannel(configuration: configuration, transport: $0, appVersion: "1.0") }
        let engine = try StepwiseEngine(
            store: try SQLiteExecutionStore(path: database.path), configuration: configuration, syncChannel: channel)
        await engine.registerHandler("call_api") { context in
            recorder.calls.withLock { $0.append(context.params) }
            if hang { try await Task.sleep(for: .seconds(3_600)) }
            return ["temperature": 21]
        }
        _ = try await engine.loadSequence(json: Array(delegating.utf8))
        return engine
    }

    /// A device engine with a scripted channel on a fresh database.
    func makeDevice(hang: Bool = false) async throws -> (Database, ScriptedTransport, ParamsRecorder, StepwiseEngine) {
        let database = Database()
        let transport = ScriptedTransport()
        let recorder = ParamsRecorder()
        return (database, transport, recorder, try await makeEngine(database, transport: transport, recorder: recorder, hang: hang))
    }

    func stepResult(_ id: String, request: JSONValue, instance: InstanceID, success: Bool) -> JSONValue {
        var payload: JSONObject = [
            "request_id": request, "instance_id": .string(instance.rawValue), "block_id": "call_api", "success": .bool(success),
        ]
        if success {
            payload["resolved_params"] = ["key": "sk-live-4242", "city": "Oslo"]
        } else {
            payload["error"] = "no credential 'weather/api_key'"
        }
        return ["id": .string(id), "type": "step_result", "payload": .object(payload)]
    }

    /// Starts `weather`, runs it until its step is delegated and sends the delegation.
    ///
    /// - Returns: the instance and the delegation's request id.
    func startDelegated(_ engine: StepwiseEngine, transport: ScriptedTransport) async throws -> (InstanceID, JSONValue) {
        let id = try await engine.start("weather", input: ["city": "Oslo"])
        try await runUntil(engine, id) { $0 == .waiting }
        _ = try await engine.syncChannel()
        let request = try #require(transport.requests.last?.body["step_delegations"]?[0]?["request_id"])
        return (id, request)
    }

    @Test func theServerResolvesTheParamsAndTheSecretIsNeverStored() async throws {
        let (database, transport, recorder, engine) = try await makeDevice()
        let id = try await engine.start("weather", input: ["city": "Oslo"])
        try await runUntil(engine, id) { $0 == .waiting }
        let waiting = try await engine.instance(id)
        #expect(waiting.state == .waiting && recorder.received.isEmpty)
        #expect(waiting.waitingReasons == ["step 'call_api' waits for the sync server to resolve its credentials:// params"])

        _ = try await engine.syncChannel()
        let sent = try #require(transport.requests.last?.body["step_delegations"]?[0])
        #expect(sent["instance_id"] == .string(id.rawValue) && sent["block_id"] == "call_api" && sent["handler"] == "call_api")
        #expect(sent["params"] == ["key": "credentials://weather/api_key", "city": "Oslo"], "resolved so far, references kept")
        let request = try #require(sent["request_id"])

        transport.answer(200, ["commands": [stepResult("r1", request: request, instance: id, success: true)]])
        let round = try await engine.syncChannel()
        #expect(round.commandsExecuted == 1)
        #expect(try await runUntilTerminal(engine, id) == .completed)
        #expect(recorder.received == [["key": "sk-live-4242", "city": "Oslo"]])
        let runs = try await engine.stepRuns(instanceId: id).filter { $0.stepId == "call_api" }
        #expect(runs.count == 1 && runs.first?.attempt == 1)
        #expect(runs.first?.params == ["key": "credentials://weather/api_key", "city": "Oslo"])
        await engine.shutdown()
        #expect(database.bytes.range(of: Data("sk-live-4242".utf8)) == nil, "the secret reached the database")
    }

    @Test func aFailedResolutionFailsTheAttemptPermanently() async throws {
        let (database, transport, recorder, engine) = try await makeDevice()
        let (id, request) = try await startDelegated(engine, transport: transport)
        transport.answer(200, ["commands": [stepResult("r1", request: request, instance: id, success: false)]])
        _ = try await engine.syncChannel()
        try await runUntilTerminal(engine, id)
        let failed = try await engine.instance(id)
        #expect(failed.state == .failed && recorder.received.isEmpty)
        #expect(failed.error?.message.contains("credential resolution failed: no credential 'weather/api_key'") == true)
        await engine.shutdown()
        withExtendedLifetime(database) {}
    }

    @Test func anUnknownRequestIdIsDoneAndIgnored() async throws {
        let (database, transport, recorder, engine) = try await makeDevice()
        let id = try await engine.start("weather", input: ["city": "Oslo"])
        try await runUntil(engine, id) { $0 == .waiting }
        transport.answer(200, ["commands": [stepResult("r9", request: "not-a-request", instance: id, success: true)]])
        _ = try await engine.syncChannel()
        let results = transport.requests.last?.body["command_results"]
        #expect(results?[0]?["id"] == "r9" && results?[0]?["outcome"] == "done")
        #expect(try await engine.instance(id).state == .waiting && recorder.received.isEmpty)
        await engine.shutdown()
        withExtendedLifetime(database) {}
    }

    @Test func cancellingADelegatedStepIgnoresTheLateResult() async throws {
        let (database, transport, recorder, engine) = try await makeDevice()
        let (id, request) = try await startDelegated(engine, transport: transport)
        try await engine.cancelInstance(id)
        #expect(try await runUntilTerminal(engine, id) == .cancelled)
        transport.answer(200, ["commands": [stepResult("r1", request: request, instance: id, success: true)]])
        _ = try await engine.syncChannel()
        #expect(transport.requests.last?.body["command_results"]?[0]?["outcome"] == "done")
        #expect(try await engine.instance(id).state == .cancelled && recorder.received.isEmpty)
        await engine.shutdown()
        withExtendedLifetime(database) {}
    }

    @Test func withoutASyncChannelTheAttemptFails() async throws {
        let database = Database()
        let recorder = ParamsRecorder()
        let engine = try await makeEngine(database, transport: nil, recorder: recorder)
        let id = try await engine.start("weather", input: ["city": "Oslo"])
        try await runUntilTerminal(engine, id)
        let failed = try await engine.instance(id)
        #expect(failed.state == .failed && recorder.received.isEmpty)
        #expect(failed.error?.message.contains("credentials:// requires a configured sync channel") == true)
        await engine.shutdown()
    }

    @Test func aCrashAfterTheSecretsArriveDelegatesTheSameAttemptAgain() async throws {
        let (database, transport, recorder, engine) = try await makeDevice(hang: true)
        let (id, first) = try await startDelegated(engine, transport: transport)
        transport.answer(200, ["commands": [stepResult("r1", request: first, instance: id, success: true)]])
        _ = try await engine.syncChannel()
        await engine.simulateCrash()

        let reopenedTransport = ScriptedTransport()
        let reopened = try await makeEngine(database, transport: reopenedTransport, recorder: recorder)
        try await runUntil(reopened, id) { $0 == .waiting }
        _ = try await reopened.syncChannel()
        let again = try #require(reopenedTransport.requests.last?.body["step_delegations"]?[0])
        let second = try #require(again["request_id"])
        #expect(second != first, "a new request id")
        #expect(again["params"] == ["key": "credentials://weather/api_key", "city": "Oslo"])
        // The command already ran before the crash: redelivery changes nothing.
        reopenedTransport.answer(200, [
            "commands": [
                stepResult("r1", request: first, instance: id, success: true),
                stepResult("r2", request: second, instance: id, success: true),
            ]
        ])
        _ = try await reopened.syncChannel()
        #expect(try await runUntilTerminal(reopened, id) == .completed)
        let runs = try await reopened.stepRuns(instanceId: id).filter { $0.stepId == "call_api" }
        #expect(runs.map(\.attempt) == [1], "the same attempt, not a new one")
        await reopened.shutdown()
        #expect(database.bytes.range(of: Data("sk-live-4242".utf8)) == nil)
    }
}
