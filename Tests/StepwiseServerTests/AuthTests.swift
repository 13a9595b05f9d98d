import HummingbirdTesting
import Foundation
import HTTPTypes
import Testing
import StepwiseJSON
import StepwiseServer

@Suite("Authentication and tenant scoping")
struct AuthTests {
    static let endpoints: [(HTTPRequest.Method, String)] = [
        (.post, "/mobile/sync"), (.post, "/mobile/devices/register"), (.get, "/mobile/devices"),
        (.get, "/mobile/approvals"), (.post, "/mobile/approvals/x/resolve"), (.get, "/mobile/status"),
        (.post, "/mobile/commands"), (.post, "/mobile/telemetry"),
    ]

    @Test("every endpoint answers 401 with an error body without a key or with an unknown one")
    func missingOrUnknownKeyIs401() async throws {
        try await ServerHarness.run { _, client in
            for (method, path) in Self.endpoints {
                let missing = try await client.send(method, path, key: nil, json: ["device_id": "d1"])
                #expect(missing.status == .unauthorized, "\(path)")
                #expect(missing.errorMessage == "missing x-api-key", "\(path)")
                let unknown = try await client.send(method, path, key: "nope", json: ["device_id": "d1"])
                #expect(unknown.status == .unauthorized, "\(path)")
                #expect(unknown.errorMessage == "invalid API key", "\(path)")
            }
        }
    }

    @Test("an admin key needs X-Tenant-Id naming a known tenant")
    func adminKeyNamesTenant() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            let noTenant = try await client.send(.get, "/mobile/devices", key: ServerHarness.adminKey)
            #expect(noTenant.status == .badRequest)
            let unknown = try await client.send(
                .get, "/mobile/devices", key: ServerHarness.adminKey, headers: [.tenantID: "nobody"])
            #expect(unknown.status == .notFound)
            let malformed = try await client.send(
                .get, "/mobile/devices", key: ServerHarness.adminKey, headers: [.tenantID: "bad tenant!"])
            #expect(malformed.status == .badRequest)
            let listed = try await client.send(
                .get, "/mobile/devices", key: ServerHarness.adminKey, headers: [.tenantID: "default"])
            #expect(listed.status == .ok)
            #expect(listed.json["total"] == 1)
            let other = try await client.send(
                .get, "/mobile/devices", key: ServerHarness.adminKey, headers: [.tenantID: "other"])
            #expect(other.json["total"] == 0)
        }
    }

    @Test("x-device-id must equal the body's device_id")
    func deviceHeaderMustMatchBody() async throws {
        try await ServerHarness.run { _, client in
            let register = try await client.send(
                .post, "/mobile/devices/register", headers: [.deviceID: "d2"], json: ["device_id": "d1", "platform": "ios"])
            #expect(register.status == .badRequest)
            #expect(register.errorMessage == "x-device-id does not match the body's device_id")
            try await client.register("d1")
            let sync = try await client.send(
                .post, "/mobile/sync", headers: [.deviceID: "d2"], json: ["device_id": "d1"])
            #expect(sync.status == .badRequest)
            // Without the header the body decides.
            let noHeader = try await client.send(.post, "/mobile/sync", json: ["device_id": "d1"])
            #expect(noHeader.status == .ok)
        }
    }

    @Test("other tenants' objects are not found")
    func tenantsAreIsolated() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1")
            _ = try await client.sync("d1", statuses: [statusUpdate(instanceA)], approvals: [approvalRequest(instanceA)])
            let other = ServerHarness.otherKey

            #expect(try await client.send(.get, "/mobile/devices", key: other).json["total"] == 0)
            #expect(try await client.send(.get, "/mobile/status", key: other).json["total"] == 0)
            #expect(try await client.send(.get, "/mobile/approvals?state=all", key: other).json["total"] == 0)

            let approvals = try await client.send(.get, "/mobile/approvals").json
            let approvalID = try #require(approvals["items"]?[0]?["id"]?.stringValue)
            let resolve = try await client.send(
                .post, "/mobile/approvals/\(approvalID)/resolve", key: other, json: ["output": ["value": "accepted"]])
            #expect(resolve.status == .notFound)

            let command = try await client.send(
                .post, "/mobile/commands", key: other,
                json: ["device_id": "d1", "command_type": "cancel_instance", "payload": ["instance_id": .string(instanceA)]])
            #expect(command.status == .notFound)

            let sync = try await client.sync("d1", key: other)
            #expect(sync.status == .notFound)

            let register = try await client.register("d1", key: other)
            #expect(register.status == .conflict)
            #expect(register.errorMessage == "device 'd1' is registered to another tenant")

            // The owner still sees its approval pending.
            #expect(try await client.send(.get, "/mobile/approvals").json["total"] == 1)
        }
    }

    @Test("unknown routes answer 404 with an error body")
    func unknownRouteIs404() async throws {
        try await ServerHarness.run { _, client in
            let response = try await client.send(.get, "/mobile/nothing")
            #expect(response.status == .notFound)
            #expect(response.errorMessage != nil)
        }
    }

    @Test("API keys are stored hashed, never in clear")
    func keysAreHashed() async throws {
        try await ServerHarness.run { harness, _ in
            let database = try Data(contentsOf: harness.directory.appendingPathComponent("server.db"))
            let wal = (try? Data(contentsOf: harness.directory.appendingPathComponent("server.db-wal"))) ?? Data()
            for file in [database, wal] {
                #expect(file.range(of: Data(ServerHarness.key.utf8)) == nil)
            }
            #expect(try await harness.store.grant(forAPIKey: ServerHarness.key) == .tenant(.defaultTenant))
            #expect(try await harness.store.grant(forAPIKey: ServerHarness.adminKey) == .admin)
            #expect(try await harness.store.grant(forAPIKey: "missing") == nil)
        }
    }
}
