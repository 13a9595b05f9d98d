import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import StepwiseJSON
import StepwiseServer

@Suite("A live server on loopback")
struct LiveServerTests {
    @Test("register, sync, resolve and deliver over real HTTP")
    func roundTrip() async throws {
        let store = try SQLiteSyncServerStore(path: ":memory:")
        let clock = ManualClock()
        try await store.addAPIKey(ServerHarness.key, grant: .tenant(.defaultTenant), now: clock.now())
        let server = SyncServer(store: store, clock: clock)
        let app = server.makeApplication(host: "127.0.0.1", port: 0)
        try await app.test(.live) { client in
            #expect(try await client.register("d1").status == .created)
            let first = try await client.sync("d1", statuses: [statusUpdate(instanceA)], approvals: [approvalRequest(instanceA)])
            #expect(first.json == ["commands": [], "sync_interval_secs": 30])
            let id = try #require(try await client.send(.get, "/mobile/approvals").json["items"]?[0]?["id"]?.stringValue)
            let resolved = try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]])
            let commandID = try #require(resolved.json["command_id"])
            let second = try await client.sync("d1")
            #expect(second.json["commands"]?[0]?["id"] == commandID)
            #expect(second.json["sync_interval_secs"] == 5)
            let third = try await client.sync("d1", acks: [commandID.stringValue ?? ""])
            #expect(third.json["sync_interval_secs"] == 30)
        }
    }
}
