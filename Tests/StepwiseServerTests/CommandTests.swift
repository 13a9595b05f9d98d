import HummingbirdTesting
import HTTPTypes
import Testing
import StepwiseJSON
import StepwiseServer

@Suite("POST /mobile/commands and command TTL")
struct CommandTests {
    @Test("a command is created (201) and delivered in the next sync")
    func createAndDeliver() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1", pushToken: "fcm-token-0123456789")
            let created = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": "onboarding-flow", "input": ["user_id": "abc"]]])
            #expect(created.status == .created)
            let id = try #require(created.json["id"]?.stringValue)
            #expect(harness.push.sent.map(\.commandID) == [id])
            let command = try await client.sync("d1").json["commands"]?[0]
            #expect(command == ["id": .string(id), "type": "start_workflow", "payload": ["sequence_name": "onboarding-flow", "input": ["user_id": "abc"]]])
        }
    }

    @Test("unknown device 404; unknown type, bad payload or an unreported instance 400")
    func validation() async throws {
        try await ServerHarness.run { _, client in
            let unknownDevice = try await client.send(
                .post, "/mobile/commands", json: ["device_id": "ghost", "command_type": "cancel_instance", "payload": ["instance_id": "i"]])
            #expect(unknownDevice.status == .notFound)
            try await client.register("d1")
            let unknownType = try await client.send(
                .post, "/mobile/commands", json: ["device_id": "d1", "command_type": "reboot", "payload": [:]])
            #expect(unknownType.status == .badRequest)
            #expect(unknownType.errorMessage == "unknown command type 'reboot'")
            let neverReported = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "cancel_instance", "payload": ["instance_id": .string(instanceA)]])
            #expect(neverReported.status == .badRequest)
            #expect(neverReported.errorMessage == "device 'd1' never reported instance '\(instanceA)'")
            let notObject = try await client.send(
                .post, "/mobile/commands", json: ["device_id": "d1", "command_type": "cancel_instance", "payload": "x"])
            #expect(notObject.status == .badRequest)
            let noSequence = try await client.send(
                .post, "/mobile/commands", json: ["device_id": "d1", "command_type": "start_workflow", "payload": [:]])
            #expect(noSequence.status == .badRequest)
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)])
            let badPolicy = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "update_sequence", "payload": ["instance_id": .string(instanceA), "policy": "yolo"]])
            #expect(badPolicy.status == .badRequest)
            let noSignal = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "send_signal", "payload": ["instance_id": .string(instanceA)]])
            #expect(noSignal.status == .badRequest)
            let customSignal = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "send_signal", "payload": ["instance_id": .string(instanceA), "signal_type": ["custom": "nudge"]]])
            #expect(customSignal.status == .created)
            // An instance known from an approval request counts as reported.
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceB)])
            let cancelB = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "cancel_instance", "payload": ["instance_id": .string(instanceB)]])
            #expect(cancelB.status == .created)
        }
    }

    @Test("a complete_step command resolves the matching pending approval")
    func completeStepResolvesApproval() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA)])
            let created = try await client.send(
                .post, "/mobile/commands",
                json: [
                    "device_id": "d1", "command_type": "complete_step",
                    "payload": ["instance_id": .string(instanceA), "step_name": "show_terms", "output": "{\"value\":\"accepted\"}"],
                ])
            #expect(created.status == .created)
            let resolved = try await client.send(.get, "/mobile/approvals?state=resolved").json["items"]?[0]
            #expect(resolved?["resolution"] == ["value": "accepted"])
            #expect(resolved?["command_id"] == created.json["id"])
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 0)
        }
    }

    @Test("a command not acknowledged within its TTL (7 days) is never delivered again")
    func commandTTL() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)])
            let id = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "cancel_instance", "payload": ["instance_id": .string(instanceA)]]
            ).json["id"]?.stringValue
            harness.clock.advance(milliseconds: 7 * 86_400_000 - 1)
            let late = try await client.sync("d1").json
            #expect(late["commands"]?[0]?["id"] == id.map(JSONValue.string))
            harness.clock.advance(milliseconds: 1)
            let expired = try await client.sync("d1").json
            #expect(expired["commands"] == [])
            #expect(expired["sync_interval_secs"] == 30)
            let record = try await harness.store.commands(tenant: .defaultTenant, deviceID: "d1", limit: 1).items.first
            #expect(record?.state(at: harness.clock.now()) == .expired)
            // A late ack is still recorded.
            _ = try await client.sync("d1", acks: [id ?? ""])
            let acked = try await harness.store.commands(tenant: .defaultTenant, deviceID: "d1", limit: 1).items.first
            #expect(acked?.state(at: harness.clock.now()) == .acked)
        }
    }

    @Test("the command TTL is configurable")
    func configurableTTL() async throws {
        try await ServerHarness.run(configure: { $0.commandTTLSeconds = 60 }) { harness, client in
            try await client.register("d1")
            _ = try await client.send(
                .post, "/mobile/commands", json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": "s"]])
            harness.clock.advance(seconds: 60)
            #expect(try await client.sync("d1").json["commands"] == [])
        }
    }

    @Test("a TTL too long to add to the time never expires instead of overflowing")
    func hugeTTL() async throws {
        try await ServerHarness.run(configure: { $0.commandTTLSeconds = .max }) { harness, client in
            try await client.register("d1")
            let created = try await client.send(
                .post, "/mobile/commands", json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": "s"]])
            #expect(created.status == .created)
            harness.clock.advance(seconds: 400 * 86_400)
            #expect(try await client.sync("d1").json["commands"]?.arrayValue?.count == 1)
        }
    }

    /// A command no device could take in a sync answer would stay unacknowledged until it
    /// expires, making every sync of its device fail: it is refused when queued.
    @Test("a payload past 1 MiB is refused (413), one nested past 250 levels too (400)")
    func undeliverablePayloads() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            let big = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "start_workflow",
                       "payload": ["sequence_name": "s", "input": ["blob": .string(String(repeating: "x", count: 1 << 20))]]])
            #expect(big.status == .contentTooLarge)
            #expect(big.errorMessage?.contains("a command may carry at most 1048576 bytes") == true)
            var nested: JSONValue = 1
            for _ in 0..<250 { nested = .array([nested]) }
            let deep = try await client.send(
                .post, "/mobile/commands",
                json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": "s", "input": ["x": nested]]])
            #expect(deep.status == .badRequest)
            #expect(deep.errorMessage?.contains("nests more than 250 levels") == true)
            #expect(try await client.sync("d1").json["commands"] == [])
        }
    }

    /// Many large commands go out a few at a time, so every answer stays readable (devices
    /// take at most 4 MiB) and each one's ack frees the queue.
    @Test("a sync answer carries at most about 3 MiB of commands")
    func deliveriesAreCappedInBytes() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            let input: JSONValue = ["blob": .string(String(repeating: "y", count: 900_000))]
            for _ in 0..<6 {
                let created = try await client.send(
                    .post, "/mobile/commands",
                    json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": "s", "input": input]])
                #expect(created.status == .created)
            }
            let first = try await client.sync("d1")
            let delivered = first.json["commands"]?.arrayValue ?? []
            #expect(delivered.count == 3)
            #expect(first.json["sync_interval_secs"] == 5)
            let acks = delivered.compactMap { $0["id"]?.stringValue }
            #expect(try await client.sync("d1", acks: acks).json["commands"]?.arrayValue?.count == 3)
        }
    }

    @Test("pruning deletes old acknowledged and expired commands and finished approvals")
    func pruning() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA, timeout: 1)])
            _ = try await client.send(
                .post, "/mobile/commands", json: ["device_id": "d1", "command_type": "start_workflow", "payload": ["sequence_name": "s"]])
            harness.clock.advance(seconds: 9 * 86_400)
            let now = harness.clock.now()
            try await harness.store.prune(now: now, cutoff: now - 86_400_000)
            #expect(try await harness.store.commands(tenant: .defaultTenant, deviceID: nil, limit: 10).total == 0)
            #expect(try await harness.store.approvals(tenant: .defaultTenant, state: nil, deviceID: nil, limit: 10, now: now).total == 0)
        }
    }
}
