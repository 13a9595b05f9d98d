import HummingbirdTesting
import HTTPTypes
import Testing
import StepwiseJSON
import StepwiseServer

@Suite("Approvals: listing, resolving, expiry")
struct ApprovalTests {
    @Test("listing filters by state (pending by default) and device")
    func listing() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            try await client.register("d2")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA)])
            _ = try await client.sync("d2", approvals: [approvalRequest(instanceB)])
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 2)
            let d2 = try await client.send(.get, "/mobile/approvals?device_id=d2").json
            #expect(d2["total"] == 1)
            #expect(d2["items"]?[0]?["instance_id"] == .string(instanceB))
            #expect(try await client.send(.get, "/mobile/approvals?state=resolved").json["total"] == 0)
            #expect(try await client.send(.get, "/mobile/approvals?state=all").json["total"] == 2)
            #expect(try await client.send(.get, "/mobile/approvals?state=done").status == .badRequest)
        }
    }

    @Test("resolve queues complete_step, delivered in the next sync, and pushes")
    func resolveRoundTrip() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1", pushToken: "apns-token-abcdef123456")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA)])
            let id = try #require(try await client.send(.get, "/mobile/approvals").json["items"]?[0]?["id"]?.stringValue)

            let resolved = try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]])
            #expect(resolved.status == .ok)
            let commandID = try #require(resolved.json["command_id"]?.stringValue)

            let approval = try await client.send(.get, "/mobile/approvals?state=resolved").json["items"]?[0]
            #expect(approval?["resolution"] == ["value": "accepted"])
            #expect(approval?["resolved_at"] == .string(ServerTimeText.of(harness.clock.now())))
            #expect(approval?["command_id"] == .string(commandID))

            #expect(harness.push.sent.map(\.deviceID) == ["d1"])
            #expect(harness.push.sent.first?.commandID == commandID)
            #expect(harness.push.sent.first?.token == "apns-token-abcdef123456")

            let sync = try await client.sync("d1").json
            #expect(
                sync["commands"] == [[
                    "id": .string(commandID), "type": "complete_step",
                    "payload": [
                        "instance_id": .string(instanceA), "block_id": "show_terms", "step_name": "show_terms",
                        "output": ["value": "accepted"],
                    ],
                ]])
            #expect(sync["sync_interval_secs"] == 5)

            // Not pending any more.
            let again = try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]])
            #expect(again.status == .notFound)
        }
    }

    @Test("resolve validates the output against the choices")
    func resolveValidation() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync(
                "d1", approvals: [approvalRequest(instanceA), approvalRequest(instanceB, block: "free", choices: nil)])
            let items = try await client.send(.get, "/mobile/approvals").json["items"]?.arrayValue ?? []
            let withChoices = try #require(items.first { $0["block_id"] == "show_terms" }?["id"]?.stringValue)
            let free = try #require(items.first { $0["block_id"] == "free" }?["id"]?.stringValue)

            let wrong = try await client.send(.post, "/mobile/approvals/\(withChoices)/resolve", json: ["output": ["value": "maybe"]])
            #expect(wrong.status == .badRequest)
            #expect(wrong.errorMessage == "output.value must be one of the approval's choices: accepted, declined")
            #expect(try await client.send(.post, "/mobile/approvals/\(withChoices)/resolve", json: [:]).status == .badRequest)
            #expect(
                try await client.send(.post, "/mobile/approvals/\(withChoices)/resolve", json: ["output": 3]).status == .badRequest)
            #expect(try await client.send(.post, "/mobile/approvals/unknown/resolve", json: ["output": ["value": "x"]]).status == .notFound)
            // Output as JSON text (orch8 clients) is accepted.
            let text = try await client.send(
                .post, "/mobile/approvals/\(withChoices)/resolve", json: ["output": "{\"value\":\"declined\"}"])
            #expect(text.status == .ok)
            // Without choices any output goes.
            let anything = try await client.send(.post, "/mobile/approvals/\(free)/resolve", json: ["output": ["note": "ok"]])
            #expect(anything.status == .ok)
            // No push token: no push.
            #expect(harness.push.sent.isEmpty)
        }
    }

    @Test("an approval expires after its timeout_seconds")
    func expiryByTimeout() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA, timeout: 60)])
            let id = try #require(try await client.send(.get, "/mobile/approvals").json["items"]?[0]?["id"]?.stringValue)
            harness.clock.advance(seconds: 59)
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 1)
            harness.clock.advance(seconds: 1)
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 0)
            let expired = try await client.send(.get, "/mobile/approvals?state=expired").json
            #expect(expired["items"]?[0]?["id"] == .string(id))
            #expect(expired["items"]?[0]?["state"] == "expired")
            #expect(try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]]).status == .notFound)
            // A new request for the same wait is a new pending approval.
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA, timeout: 60)])
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 1)
        }
    }

    @Test("an approval without timeout_seconds expires after the approval TTL (1 day)")
    func expiryByTTL() async throws {
        try await ServerHarness.run { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA, timeout: nil)])
            let item = try await client.send(.get, "/mobile/approvals").json["items"]?[0]
            #expect(item?["timeout_secs"] == .null)
            harness.clock.advance(seconds: 86_400 - 1)
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 1)
            harness.clock.advance(seconds: 1)
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 0)
            #expect(try await client.send(.get, "/mobile/approvals?state=expired").json["total"] == 1)
        }
    }

    @Test("the approval TTL is configurable")
    func configurableTTL() async throws {
        try await ServerHarness.run(configure: { $0.approvalTTLSeconds = 10 }) { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", approvals: [approvalRequest(instanceA, timeout: nil)])
            harness.clock.advance(seconds: 10)
            #expect(try await client.send(.get, "/mobile/approvals?state=expired").json["total"] == 1)
        }
    }
}
