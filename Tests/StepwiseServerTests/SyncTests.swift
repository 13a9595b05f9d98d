import HummingbirdTesting
import HTTPTypes
import Testing
import StepwiseJSON
import StepwiseServer

@Suite("POST /mobile/sync")
struct SyncTests {
    @Test("an unregistered device is 404, and nothing it sent is stored")
    func unregisteredDevice() async throws {
        try await ServerHarness.run { _, client in
            let response = try await client.sync("ghost", statuses: [statusUpdate(instanceA)])
            #expect(response.status == .notFound)
            #expect(response.errorMessage == "device 'ghost' is not registered; register it first")
            #expect(try await client.send(.get, "/mobile/status").json["total"] == 0)
        }
    }

    @Test("an empty sync answers no commands and the idle interval, and stamps last_sync_at")
    func emptySync() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            harness.clock.advance(seconds: 2)
            let response = try await client.sync("d1")
            #expect(response.status == .ok)
            #expect(response.json == ["commands": [], "sync_interval_secs": 30])
            let device = try await client.send(.get, "/mobile/devices").json["items"]?[0]
            #expect(device?["last_sync_at"] == .string(ServerTimeText.of(harness.clock.now())))
            // Missing arrays count as empty.
            #expect(try await client.send(.post, "/mobile/sync", json: ["device_id": "d1"]).status == .ok)
        }
    }

    @Test("malformed requests are 400")
    func malformedRequests() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            #expect(try await client.send(.post, "/mobile/sync", body: "{").status == .badRequest)
            #expect(try await client.send(.post, "/mobile/sync", json: ["status_updates": []]).status == .badRequest)
            #expect(try await client.send(.post, "/mobile/sync", json: ["device_id": "d1", "status_updates": 3]).status == .badRequest)
            let badTimestamp = try await client.sync("d1", statuses: [statusUpdate(instanceA, timestamp: "yesterday")])
            #expect(badTimestamp.status == .badRequest)
            #expect(badTimestamp.errorMessage == "status_updates[0].timestamp is not an RFC 3339 date-time")
            let noInstance = try await client.sync("d1", statuses: [["state": "Running", "timestamp": "2026-05-19T10:30:00Z"]])
            #expect(noInstance.errorMessage == "status_updates[0].instance_id is required and must be a non-empty string")
            #expect(try await client.sync("d1", acks: []).status == .ok)
            let badAck = try await client.send(.post, "/mobile/sync", json: ["device_id": "d1", "command_acks": [1]])
            #expect(badAck.status == .badRequest)
            let badApproval = try await client.sync("d1", approvals: [["instance_id": .string(instanceA)]])
            #expect(badApproval.errorMessage == "approval_requests[0].block_id is required and must be a non-empty string")
        }
    }

    @Test("an array over the limit is 400 and a body over the cap is 413")
    func limits() async throws {
        try await ServerHarness.run(configure: {
            $0.maxArrayItems = 3
            $0.maxBodyBytes = 4096
        }) { _, client in
            try await client.register("d1")
            let tooMany = try await client.sync("d1", acks: ["a", "b", "c", "d"])
            #expect(tooMany.status == .badRequest)
            #expect(tooMany.errorMessage == "command_acks has 4 items; at most 3 are allowed")
            #expect(try await client.sync("d1", acks: ["a", "b", "c"]).status == .ok)
            let huge = try await client.sync("d1", statuses: [statusUpdate(instanceA, currentStep: String(repeating: "x", count: 5000))])
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorMessage == "request body exceeds 4096 bytes")
        }
    }

    @Test("statuses are last-write-wins per (device, instance) by timestamp")
    func statusLastWriteWins() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            try await client.register("d2")
            let steps: JSONValue = [[
                "block_id": "init_profile", "block_type": "step", "state": "completed", "handler": "init_profile",
                "started_at": "2026-05-19T10:29:58.120Z", "completed_at": "2026-05-19T10:29:58.310Z",
            ]]
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA, state: "Waiting", timestamp: "2026-05-19T10:30:00.000Z", steps: steps)])
            // Older: ignored.
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA, state: "Running", timestamp: "2026-05-19T10:29:00.000Z")])
            var items = try await client.send(.get, "/mobile/status").json["items"]?.arrayValue ?? []
            #expect(items.count == 1)
            #expect(items.first?["state"] == "Waiting")
            #expect(items.first?["steps"] == steps)
            #expect(items.first?["sequence_name"] == "onboarding-flow")
            #expect(items.first?["current_step"] == "show_terms")
            #expect(items.first?["context_summary"] == nil)
            // Newer (with an offset, same instant + 1 s): applied.
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA, state: "Completed", timestamp: "2026-05-19T12:30:01+02:00", currentStep: nil)])
            items = try await client.send(.get, "/mobile/status").json["items"]?.arrayValue ?? []
            #expect(items.first?["state"] == "Completed")
            #expect(items.first?["current_step"] == .null)
            #expect(items.first?["timestamp"] == "2026-05-19T10:30:01.000Z")
            // The same instance id on another device is another row; device_id filters.
            _ = try await client.sync("d2", statuses: [statusUpdate(instanceA, state: "Failed")])
            #expect(try await client.send(.get, "/mobile/status").json["total"] == 2)
            let d2 = try await client.send(.get, "/mobile/status?device_id=d2").json
            #expect(d2["total"] == 1)
            #expect(d2["items"]?[0]?["state"] == "Failed")
        }
    }

    @Test("context_summary is never stored")
    func contextSummaryIsDropped() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)])
            let status = try await harness.store.statuses(tenant: .defaultTenant, deviceID: nil, limit: 10)
            #expect(!JSONWriter.string(status.items[0].json).contains("must-not-be-stored"))
        }
    }

    @Test("approval requests are de-duplicated per (device, instance, block) while pending")
    func approvalDeduplication() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA), approvalRequest(instanceA)])
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA, prompt: "again")])
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA, block: "admin_approval")])
            let pending = try await client.send(.get, "/mobile/approvals").json
            #expect(pending["total"] == 2)
            let terms = pending["items"]?.arrayValue?.first { $0["block_id"] == "show_terms" }
            #expect(terms?["prompt"] == "Accept the terms?")
            #expect(terms?["timeout_secs"] == 300)
            #expect(terms?["store_as"] == "terms_decision")
            #expect(terms?["metadata"]?["wait_id"] == "w1")
            #expect(terms?["choices"]?[1]?["value"] == "declined")
            #expect(terms?["state"] == "pending")
            #expect(terms?["resolution"] == .null)
            // Once resolved, the same block may ask again (a loop iteration, a new wait).
            let id = try #require(terms?["id"]?.stringValue)
            #expect(try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]]).status == .ok)
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA)])
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 2)
            #expect(try await client.send(.get, "/mobile/approvals?state=all").json["total"] == 3)
        }
    }

    @Test("commands are delivered again on every sync until acknowledged; results are stored")
    func redeliveryUntilAcked() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)])
            let created = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "cancel_instance", "payload": ["instance_id": .string(instanceA)]])
            #expect(created.status == .created)
            let id = try #require(created.json["id"]?.stringValue)

            let first = try await client.sync("d1")
            #expect(first.json["commands"] == [["id": .string(id), "type": "cancel_instance", "payload": ["instance_id": .string(instanceA)]]])
            #expect(first.json["sync_interval_secs"] == 5)
            // No ack (the response was lost, or the device crashed): delivered again.
            let second = try await client.sync("d1")
            #expect(second.json["commands"]?[0]?["id"] == .string(id))
            #expect(second.json["sync_interval_secs"] == 5)
            var listed = try await harness.store.commands(tenant: .defaultTenant, deviceID: "d1", limit: 10)
            #expect(listed.items.first?.deliveryCount == 2)
            #expect(listed.items.first?.state(at: harness.clock.now()) == .delivered)

            let acked = try await client.sync(
                "d1", acks: [id], results: [["id": .string(id), "outcome": "done", "instance_id": nil, "error": nil]])
            #expect(acked.json["commands"] == [])
            #expect(acked.json["sync_interval_secs"] == 30)
            listed = try await harness.store.commands(tenant: .defaultTenant, deviceID: "d1", limit: 10)
            #expect(listed.items.first?.state(at: harness.clock.now()) == .acked)
            #expect(listed.items.first?.result == CommandResult(id: id, outcome: "done"))
            #expect(try await client.sync("d1").json["commands"] == [])
        }
    }

    @Test("commands a device keeps answering `retry` to yield to newer ones: a full batch of them cannot hold back the rest")
    func stuckCommandsYield() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)])
            var starts: [String] = []
            for _ in 0..<SyncServerConfiguration().maxCommandsPerSync {
                let created = try await client.send(
                    .post, "/mobile/commands", json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": "later"]])
                starts.append(try #require(created.json["id"]?.stringValue))
            }
            let cancel = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "cancel_instance", "payload": ["instance_id": .string(instanceA)]])
            #expect(cancel.status == .created, "\(cancel.json)")
            let cancelID = try #require(cancel.json["id"]?.stringValue)
            // The device answers `retry` (no ack) to every start: the batch is full of them...
            for _ in 0..<3 {  // SQLiteSyncServerStore.stuckDeliveries
                let ids = try await client.sync("d1").json["commands"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                #expect(ids == starts)
            }
            // ...until they have been delivered often enough: then the newer command comes first.
            let ids = try await client.sync("d1").json["commands"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids.first == cancelID)
            #expect(ids.dropFirst() == starts.prefix(ids.count - 1))
        }
    }

    @Test("a rejected result acknowledges its command and keeps the error")
    func rejectedResult() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)])
            let id = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "send_signal", "payload": ["instance_id": .string(instanceA), "signal_type": "pause"]]
            ).json["id"]?.stringValue
            _ = try await client.sync("d1")
            let response = try await client.sync(
                "d1", results: [["id": .string(id ?? ""), "outcome": "rejected", "error": "unknown instance"]])
            #expect(response.json["sync_interval_secs"] == 30)
            let record = try await harness.store.commands(tenant: .defaultTenant, deviceID: nil, limit: 1).items.first
            #expect(record?.result?.outcome == "rejected")
            #expect(record?.result?.error == "unknown instance")
            #expect(record?.ackedAt != nil)
        }
    }

    @Test("acks for other devices' commands are ignored")
    func acksAreScopedToTheDevice() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            try await client.register("d2")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)])
            let id = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "cancel_instance", "payload": ["instance_id": .string(instanceA)]]
            ).json["id"]?.stringValue ?? ""
            _ = try await client.sync("d2", acks: [id])
            #expect(try await client.sync("d1").json["commands"]?[0]?["id"] == .string(id))
        }
    }

    @Test("a response carries at most maxCommandsPerSync commands, oldest first")
    func deliveryLimit() async throws {
        try await ServerHarness.run(configure: { $0.maxCommandsPerSync = 2 }) { harness, client in
            try await client.register("d1")
            var ids: [String] = []
            for index in 0..<3 {
                let response = try await client.send(
                    .post, "/mobile/commands",
                    json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": .string("s\(index)")]])
                ids.append(response.json["id"]?.stringValue ?? "")
                harness.clock.advance(milliseconds: 1)
            }
            let first = try await client.sync("d1").json
            #expect(first["commands"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == Array(ids.prefix(2)))
            let second = try await client.sync("d1", acks: Array(ids.prefix(2))).json
            #expect(second["commands"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [ids[2]])
            #expect(second["sync_interval_secs"] == 5)
        }
    }

    @Test("the flat command format puts payload fields beside id and type, output as JSON text")
    func flatFormat() async throws {
        try await ServerHarness.run(configure: { $0.commandFormat = .flat }) { _, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA)])
            let id = try await client.send(.get, "/mobile/approvals").json["items"]?[0]?["id"]?.stringValue ?? ""
            let commandID = try await client.send(
                .post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]]
            ).json["command_id"]
            let command = try await client.sync("d1").json["commands"]?[0]
            #expect(
                command == [
                    "id": commandID ?? nil, "type": "complete_step", "instance_id": .string(instanceA),
                    "block_id": "show_terms", "step_name": "show_terms", "output": "{\"value\":\"accepted\"}",
                ])
            // A send_signal's own `payload` member cannot be spread flat: that command goes nested.
            let signal = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "send_signal",
                       "payload": ["instance_id": .string(instanceA), "signal_type": "update_context", "payload": ["k": 1]]])
            #expect(signal.status == .created)
            let delivered = try await client.sync("d1", acks: [commandID?.stringValue ?? ""]).json["commands"]?[0]
            #expect(delivered?["payload"] == ["instance_id": .string(instanceA), "signal_type": "update_context", "payload": ["k": 1]])
        }
    }

    @Test("telemetry events are stored for a registered device")
    func telemetry() async throws {
        try await ServerHarness.run { harness, client in
            let body: JSONValue = [
                "events": [["event_type": "step_completed", "payload": "{\"step\":\"a\"}", "timestamp": "2026-05-19T10:30:00Z"]],
                "device": ["device_id": "d1", "os_name": "iOS", "os_version": "18.0", "app_version": "1.0", "sdk_version": "0.1.0"],
            ]
            #expect(try await client.send(.post, "/mobile/telemetry", json: body).status == .notFound)
            try await client.register("d1")
            let response = try await client.send(.post, "/mobile/telemetry", json: body)
            #expect(response.status == .ok)
            #expect(response.json == ["accepted": 1])
            let stored = try await harness.store.telemetry(tenant: .defaultTenant, limit: 10)
            #expect(stored.items.map(\.eventType) == ["step_completed"])
            #expect(try await client.send(.post, "/mobile/telemetry", json: ["events": []]).status == .badRequest)
        }
    }
}
