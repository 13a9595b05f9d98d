import Foundation
import Stepwise
import StepwiseSync
import Testing

/// The `steps` of a status update (SYNC.md §2.3) for blocks that never started.
@Suite("Sync channel: the state of blocks that never started")
struct StatusStepsTests {
    static let sequence = #"""
        {"name": "routes", "version": 1, "blocks": [
          {"type": "router", "id": "pick", "routes": [
            {"condition": "true", "blocks": [{"type": "step", "id": "taken", "handler": "noop"}]},
            {"condition": "true", "blocks": [{"type": "step", "id": "second", "handler": "noop"}]}],
           "default": [{"type": "step", "id": "fallback", "handler": "noop"}]},
          {"type": "step", "id": "ask", "handler": "noop", "wait_for_input": {"prompt": "Go on?"}},
          {"type": "step", "id": "later", "handler": "noop"}
        ]}
        """#

    /// The states of the last status update sent for the instance, by block id.
    func states(in transport: ScriptedTransport) -> [String: String] {
        var states: [String: String] = [:]
        for request in transport.requests {
            for update in request.body["status_updates"]?.arrayValue ?? [] {
                for step in update["steps"]?.arrayValue ?? [] {
                    if let id = step["block_id"]?.stringValue, let state = step["state"]?.stringValue { states[id] = state }
                }
            }
        }
        return states
    }

    /// §2.8: the routes a router did not choose are skipped at once; §2.2: once the instance
    /// has ended, a block that never started is `cancelled` (or `skipped` when it completed).
    @Test func unchosenRoutesAreSkippedAndUnreachedBlocksEndWithTheInstance() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("status-\(UUID().uuidString).db").path
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        var configuration = EngineConfiguration()
        configuration.syncUrl = "https://sync.test/mobile/sync"
        configuration.deviceId = "device-7"
        let transport = ScriptedTransport()
        let channel = try SyncChannel(configuration: configuration, transport: transport, appVersion: "1.0")
        let engine = try StepwiseEngine(store: try SQLiteExecutionStore(path: path), configuration: configuration, syncChannel: channel)
        _ = try await engine.loadSequence(json: Array(Self.sequence.utf8))
        let id = try await engine.start("routes")
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 60_000)
        _ = try await engine.syncChannel()
        let waiting = states(in: transport)
        #expect(waiting == ["pick": "completed", "taken": "completed", "second": "skipped", "fallback": "skipped", "ask": "waiting", "later": "pending"])

        try await engine.cancelInstance(id)
        _ = try await engine.runUntilIdle(maxTicks: 10, timeBudgetMs: 60_000)
        _ = try await engine.syncChannel()
        let cancelled = states(in: transport)
        #expect(cancelled["later"] == "cancelled" && cancelled["second"] == "skipped" && cancelled["ask"] == "cancelled", "\(cancelled)")
        await engine.shutdown()
    }
}
