import HummingbirdTesting
import HTTPTypes
import Foundation
import Testing
import StepwiseJSON
@testable import StepwiseServer

@Suite("Step delegations (credentials://)")
struct DelegationTests {
    static let credentials = CredentialStore([
        .defaultTenant: ["weather": ["api_key": "sk-weather-secret-42", "region": "eu"], "smtp": "hunter2-secret"]
    ])

    static func delegation(_ requestID: String, params: JSONValue) -> JSONValue {
        [
            "request_id": .string(requestID), "instance_id": .string(instanceA), "block_id": "call_api", "handler": "call_api",
            "params": params,
        ]
    }

    @Test("resolved references come back in a step_result; the secret is stored only sealed")
    func resolvedDelegation() async throws {
        try await ServerHarness.run(credentials: Self.credentials) { harness, client in
            try await client.register("d1")
            let params: JSONValue = [
                "key": "credentials://weather/api_key", "whole": "credentials://smtp", "city": "Paris",
                "nested": ["credentials://weather/region", "plain"],
            ]
            let response = try await client.sync("d1", delegations: [Self.delegation("r1", params: params)])
            #expect(response.json["sync_interval_secs"] == 5)
            let command = try #require(response.json["commands"]?[0])
            #expect(command["type"] == "step_result")
            #expect(
                command["payload"] == [
                    "request_id": "r1", "instance_id": .string(instanceA), "block_id": "call_api", "handler": "call_api",
                    "success": true,
                    "resolved_params": [
                        "key": "sk-weather-secret-42", "whole": "hunter2-secret", "city": "Paris", "nested": ["eu", "plain"],
                    ],
                ])
            // Listings and the database never hold the secret in clear.
            let stored = try await harness.store.commands(tenant: .defaultTenant, deviceID: nil, limit: 1).items[0]
            #expect(stored.command.payload["resolved_params"] == nil)
            #expect(stored.command.payload["resolved_params_sealed"] == true)
            #expect(stored.command.sealedPayload != nil)
            for suffix in ["", "-wal"] {
                let file = (try? Data(contentsOf: harness.directory.appendingPathComponent("server.db" + suffix))) ?? Data()
                #expect(file.range(of: Data("sk-weather-secret-42".utf8)) == nil)
            }
            // Re-sent (the response was lost): the same request id is answered once.
            let again = try await client.sync("d1", delegations: [Self.delegation("r1", params: params)])
            #expect(again.json["commands"]?.arrayValue?.count == 1)
            #expect(again.json["commands"]?[0]?["id"] == command["id"])
        }
    }

    @Test("an unresolvable reference answers success false with the reason")
    func failedDelegation() async throws {
        try await ServerHarness.run(credentials: Self.credentials) { _, client in
            try await client.register("d1")
            let missing = try await client.sync("d1", delegations: [Self.delegation("r2", params: ["k": "credentials://nope"])])
            let payload = missing.json["commands"]?[0]?["payload"]
            #expect(payload?["success"] == false)
            #expect(payload?["error"] == "credential 'nope' not found")
            #expect(payload?["resolved_params"] == nil)
            let field = try await client.sync("d1", delegations: [Self.delegation("r3", params: ["k": "credentials://weather/missing"])])
            #expect(field.json["commands"]?.arrayValue?.last?["payload"]?["error"] == "credential 'weather' has no field 'missing'")
        }
    }

    @Test("credentials are per tenant")
    func credentialsArePerTenant() async throws {
        try await ServerHarness.run(credentials: Self.credentials) { _, client in
            try await client.register("d9", key: ServerHarness.otherKey)
            let response = try await client.sync(
                "d9", key: ServerHarness.otherKey, delegations: [Self.delegation("r1", params: ["k": "credentials://smtp"])])
            #expect(response.json["commands"]?[0]?["payload"]?["success"] == false)
        }
    }

    @Test("a sealed payload that cannot be opened is delivered as a failed step_result")
    func unreadableSeal() async throws {
        try await ServerHarness.run(credentials: Self.credentials) { harness, client in
            try await client.register("d1")
            _ = try await client.sync("d1", delegations: [Self.delegation("r1", params: ["k": "credentials://smtp"])])
            // A server restarted with another key reads the same store.
            let restarted = SyncServer(store: harness.store, clock: harness.clock, sealer: .random())
            let record = try await harness.store.commands(tenant: .defaultTenant, deviceID: nil, limit: 1).items[0]
            let wire = restarted.wireCommand(record)
            #expect(wire["payload"]?["success"] == false)
            #expect(wire["payload"]?["error"] == "the server could not decrypt the resolved credentials")
        }
    }
}
