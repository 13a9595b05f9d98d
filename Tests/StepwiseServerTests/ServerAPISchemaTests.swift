import HTTPTypes
import HummingbirdTesting
import StepwiseJSON
import StepwiseServer
import StepwiseTesting
import Testing

/// `Schemas/server-api.schema.json` (and the server's side of `sync-response.schema.json`):
/// every body of SYNC.md §5's operator endpoints, produced by the reference server through
/// the router harness, checked against the definition of its endpoint; real bodies broken the
/// way a regression would break them are refused.
///
/// These tests live here rather than in `StepwiseSchemaTests` because the harness (a server on
/// a temporary database, a hand-moved clock) is this target's.
@Suite("Server API bodies match Schemas/server-api.schema.json")
struct ServerAPISchemaTests {
    private static func validator(_ definition: String) throws -> JSONSchemaValidator {
        try SchemaCatalog.validator(for: SchemaCatalog.serverAPI, definition: definition)
    }

    private static func expectValid(
        _ body: JSONValue, _ definition: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let violations = try validator(definition).validate(body)
        #expect(
            violations.isEmpty, "\(definition):\n\(violations.map(\.description).joined(separator: "\n"))\n\(JSONWriter.string(body))",
            sourceLocation: sourceLocation)
    }

    private static func expectRejected(
        _ body: JSONValue, _ definition: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(!(try validator(definition).isValid(body)), "\(definition) accepted \(JSONWriter.string(body))", sourceLocation: sourceLocation)
    }

    /// Two devices (one with a push token), statuses with a step timeline, a pending, a resolved
    /// and an expired approval, and the bodies of every list, resolve and command endpoint.
    @Test func operatorBodiesMatchTheirDefinitions() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1", pushToken: "apns-token-abcdef123456")
            try await client.register("d2")
            let steps: JSONValue = [
                [
                    "block_id": "show_terms", "block_type": "step", "state": "waiting", "handler": "show_terms",
                    "started_at": "2026-05-19T10:29:58.120Z", "completed_at": nil,
                ],
                ["block_id": "after", "block_type": "router", "state": "pending", "started_at": nil, "completed_at": nil],
            ]
            let first = try await client.sync(
                "d1", statuses: [statusUpdate(instanceA, state: "Waiting", steps: steps)],
                approvals: [approvalRequest(instanceA), approvalRequest(instanceA, block: "second", timeout: nil, choices: nil)])
            try Self.expectSyncResponse(first.json)
            _ = try await client.sync("d2", statuses: [statusUpdate(instanceB, state: "Completed", currentStep: nil)],
                approvals: [approvalRequest(instanceB, timeout: 60)])

            let devices = try await client.send(.get, "/mobile/devices").json
            try Self.expectValid(devices, "deviceList")
            #expect(devices["items"]?.arrayValue?.count == 2)
            let statuses = try await client.send(.get, "/mobile/status").json
            try Self.expectValid(statuses, "statusList")
            #expect(statuses["items"]?.arrayValue?.count == 2)

            harness.clock.advance(seconds: 120)  // d2's approval (60 s) expires
            let pending = try await client.send(.get, "/mobile/approvals?device_id=d1").json
            try Self.expectValid(pending, "approvalList")
            let id = try #require(pending["items"]?.arrayValue?.first { $0["block_id"] == "show_terms" }?["id"]?.stringValue)

            let resolveRequest: JSONValue = ["output": ["value": "accepted"]]
            try Self.expectValid(resolveRequest, "resolveRequest")
            let resolved = try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: resolveRequest)
            #expect(resolved.status == .ok)
            try Self.expectValid(resolved.json, "resolveResponse")

            let all = try await client.send(.get, "/mobile/approvals?state=all").json
            try Self.expectValid(all, "approvalList")
            let states = Set(all["items"]?.arrayValue?.compactMap { $0["state"]?.stringValue } ?? [])
            #expect(states == ["pending", "resolved", "expired"])

            let commandRequest: JSONValue = [
                "device_id": "d1", "command_type": "send_signal",
                "payload": ["instance_id": .string(instanceA), "signal_type": "update_context", "payload": ["data": ["tier": "pro"]]],
            ]
            try Self.expectValid(commandRequest, "commandRequest")
            let created = try await client.send(.post, "/mobile/commands", json: commandRequest)
            #expect(created.status == .created)
            try Self.expectValid(created.json, "commandResponse")
            let start: JSONValue = [
                "device_id": "d2", "command_type": "start_workflow", "payload": ["sequence_name": "onboarding-flow", "input": "{\"a\":1}"],
            ]
            try Self.expectValid(start, "commandRequest")
            #expect(try await client.send(.post, "/mobile/commands", json: start).status == .created)
            try Self.expectSyncResponse(try await client.sync("d1").json)

            let telemetry = try await client.send(
                .post, "/mobile/telemetry", headers: [.deviceID: "d1"],
                json: [
                    "events": [["event_type": "instance_started", "payload": "{}", "timestamp": "2026-05-19T10:30:00.004Z"]],
                    "device": [
                        "device_id": "d1", "os_name": "iOS", "os_version": "18.0", "app_version": "1.0.0", "sdk_version": "0.1.0",
                        "environment": "",
                    ],
                ])
            #expect(telemetry.status == .ok)
            try Self.expectValid(telemetry.json, "telemetryResponse")

            // The root accepts any operator body.
            let root = try SchemaCatalog.validator(for: SchemaCatalog.serverAPI)
            for body in [devices, statuses, all, resolved.json, created.json, telemetry.json] {
                #expect(root.validate(body).isEmpty)
            }
        }
    }

    /// The sync answer, nested as the reference server sends it by default.
    private static func expectSyncResponse(_ body: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let violations = try SchemaCatalog.validator(for: SchemaCatalog.syncResponse).validate(body)
        #expect(violations.isEmpty, "sync response: \(violations.map(\.description))", sourceLocation: sourceLocation)
    }

    /// Every error the operator endpoints answer (400, 401, 404, 409) has the `error` body.
    @Test func errorBodiesMatchTheErrorDefinition() async throws {
        try await ServerHarness.run(configure: { $0.maxDevicesPerTenant = 1 }) { _, client in
            try await client.register("d1")
            let answers = [
                try await client.send(.get, "/mobile/devices", key: nil),
                try await client.send(.get, "/mobile/approvals?state=done"),
                try await client.send(.post, "/mobile/approvals/nope/resolve", json: ["output": ["value": "x"]]),
                try await client.send(.post, "/mobile/commands", json: ["device_id": "ghost", "command_type": "cancel_instance", "payload": [:]]),
                try await client.send(.post, "/mobile/commands", json: ["device_id": "d1", "command_type": "explode", "payload": [:]]),
                try await client.register("d2"),
                try await client.send(.get, "/mobile/nothing-here"),
            ]
            #expect(answers.map(\.status.code) == [401, 400, 404, 404, 400, 409, 404])
            for answer in answers {
                try Self.expectValid(answer.json, "error")
            }
        }
    }

    /// Real bodies with a member renamed, retyped, out of its enumeration, or a push token
    /// leaked are refused.
    @Test func definitionsRefuseWrongShapes() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1", pushToken: "apns-token-abcdef123456")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)], approvals: [approvalRequest(instanceA)])
            let devices = try await client.send(.get, "/mobile/devices").json
            let approvals = try await client.send(.get, "/mobile/approvals").json
            let statuses = try await client.send(.get, "/mobile/status").json
            let id = try #require(approvals["items"]?[0]?["id"]?.stringValue)
            let resolved = try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]]).json
            let error = try await client.send(.get, "/mobile/devices", key: nil).json
            try Self.expectValid(devices, "deviceList")
            try Self.expectValid(approvals, "approvalList")
            try Self.expectValid(statuses, "statusList")
            try Self.expectValid(resolved, "resolveResponse")
            try Self.expectValid(error, "error")

            let device = try #require(devices["items"]?[0]?.objectValue)
            func withDevice(_ edit: (inout JSONObject) -> Void) -> JSONValue {
                var copy = device
                edit(&copy)
                return ["items": [.object(copy)], "total": 1]
            }
            try Self.expectRejected(withDevice { $0["push_token"] = "apns-token-abcdef123456" }, "deviceList")
            try Self.expectRejected(withDevice { $0["active"] = "yes" }, "deviceList")
            try Self.expectRejected(withDevice { $0["registered_at"] = 1_780_000_000_000 }, "deviceList")
            try Self.expectRejected(withDevice { $0["has_push_token"] = nil }, "deviceList")
            try Self.expectRejected(["items": devices["items"] ?? [], "total": "1"], "deviceList")
            try Self.expectRejected(["devices": devices["items"] ?? [], "total": 1], "deviceList")

            let approval = try #require(approvals["items"]?[0]?.objectValue)
            func withApproval(_ edit: (inout JSONObject) -> Void) -> JSONValue {
                var copy = approval
                edit(&copy)
                return ["items": [.object(copy)], "total": 1]
            }
            try Self.expectRejected(withApproval { $0["state"] = "open" }, "approvalList")
            try Self.expectRejected(withApproval { $0["timeout_secs"] = "300" }, "approvalList")
            try Self.expectRejected(withApproval { $0["choices"] = "[{\"label\":\"A\",\"value\":\"a\"}]" }, "approvalList")
            try Self.expectRejected(withApproval { $0["resolution"] = ["value": "accepted"] }, "approvalList")  // pending
            try Self.expectRejected(withApproval { $0["state"] = "resolved" }, "approvalList")  // without resolution
            try Self.expectRejected(withApproval { $0["timeout_seconds"] = $0["timeout_secs"]; $0["timeout_secs"] = nil }, "approvalList")

            let status = try #require(statuses["items"]?[0]?.objectValue)
            func withStatus(_ edit: (inout JSONObject) -> Void) -> JSONValue {
                var copy = status
                edit(&copy)
                return ["items": [.object(copy)], "total": 1]
            }
            try Self.expectRejected(withStatus { $0["state"] = "running" }, "statusList")
            try Self.expectRejected(withStatus { $0["steps"] = "[]" }, "statusList")
            try Self.expectRejected(withStatus { $0["updated_at"] = nil }, "statusList")

            try Self.expectRejected(["commandId": resolved["command_id"] ?? ""], "resolveResponse")
            try Self.expectRejected(["command_id": 7], "resolveResponse")
            try Self.expectRejected(["id": ""], "commandResponse")
            try Self.expectRejected(["message": error["error"] ?? ""], "error")
            try Self.expectRejected(["error": "x", "code": 401], "error")
            try Self.expectRejected(["output": ["value": "a"], "comment": "x"], "resolveRequest")
            try Self.expectRejected(["device_id": "d1", "type": "cancel_instance", "payload": ["instance_id": "i"]], "commandRequest")
            try Self.expectRejected(["device_id": "d1", "command_type": "cancel_instance", "payload": [:]], "commandRequest")
            try Self.expectRejected(["device_id": "d1", "command_type": "explode", "payload": ["instance_id": "i"]], "commandRequest")
            try Self.expectRejected(
                ["device_id": "d1", "command_type": "update_sequence", "payload": ["instance_id": "i", "policy": "later"]], "commandRequest")
            try Self.expectRejected(["device_id": "d1", "command_type": "start_workflow", "payload": [:]], "commandRequest")
            try Self.expectRejected(["accepted": -1], "telemetryResponse")
        }
    }
}
