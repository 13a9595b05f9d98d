import HummingbirdTesting
import HTTPTypes
import Foundation
import Testing
import StepwiseJSON
import StepwiseServer

@Suite("Device registration and listing")
struct DeviceTests {
    @Test("registering answers 201 without a body; listing never shows the push token")
    func registerAndList() async throws {
        try await ServerHarness.run { harness, client in
            let response = try await client.register("d1", pushToken: "apns-token-secret-123456")
            #expect(response.status == .created)
            #expect(response.isBodyEmpty)
            let list = try await client.send(.get, "/mobile/devices")
            #expect(list.status == .ok)
            let item = try #require(list.json["items"]?[0])
            #expect(item["device_id"] == "d1")
            #expect(item["tenant_id"] == "default")
            #expect(item["platform"] == "ios")
            #expect(item["app_version"] == "1.0.0")
            #expect(item["active"] == true)
            #expect(item["has_push_token"] == true)
            #expect(item["last_sync_at"] == .null)
            #expect(item["registered_at"] == .string(ServerTimeText.of(harness.clock.now())))
            #expect(!list.text.contains("apns-token-secret"))
            #expect(list.json["total"] == 1)
        }
    }

    @Test("registering again updates the device instead of adding one")
    func reRegisterUpdates() async throws {
        try await ServerHarness.run { _, client in
            try await client.register("d1", pushToken: "t1")
            let again = try await client.send(
                .post, "/mobile/devices/register", json: ["device_id": "d1", "platform": "android", "push_token": nil])
            #expect(again.status == .created)
            let list = try await client.send(.get, "/mobile/devices").json
            #expect(list["total"] == 1)
            #expect(list["items"]?[0]?["platform"] == "android")
            #expect(list["items"]?[0]?["has_push_token"] == false)
        }
    }

    @Test("registration validates its body")
    func registrationValidates() async throws {
        try await ServerHarness.run { _, client in
            let bodies: [String] = [
                #"{"platform": "ios"}"#, #"{"device_id": "d1"}"#, #"{"device_id": 5, "platform": "ios"}"#, "not json", "[1, 2]",
                #"{"device_id": "d1", "platform": "ios", "push_token": 7}"#,
            ]
            for body in bodies {
                let response = try await client.send(.post, "/mobile/devices/register", body: body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.errorMessage != nil)
            }
        }
    }

    @Test("a tenant holds at most the configured number of devices (409 beyond)")
    func deviceCap() async throws {
        try await ServerHarness.run(configure: { $0.maxDevicesPerTenant = 2 }) { _, client in
            #expect(try await client.register("d1").status == .created)
            #expect(try await client.register("d2").status == .created)
            let third = try await client.register("d3")
            #expect(third.status == .conflict)
            #expect(third.errorMessage == "the tenant already has the maximum of 2 devices")
            // Known devices may still re-register; other tenants have their own cap.
            #expect(try await client.register("d2").status == .created)
            #expect(try await client.register("d3", key: ServerHarness.otherKey).status == .created)
        }
    }

    @Test("limit defaults, caps and validation; newest first")
    func listLimits() async throws {
        try await ServerHarness.run { harness, client in
            for id in ["d1", "d2", "d3"] {
                try await client.register(id)
                harness.clock.advance(seconds: 1)
            }
            let one = try await client.send(.get, "/mobile/devices?limit=1").json
            #expect(one["items"]?.arrayValue?.count == 1)
            #expect(one["items"]?[0]?["device_id"] == "d3")
            #expect(one["total"] == 3)
            #expect(try await client.send(.get, "/mobile/devices?limit=100000").status == .ok)
            #expect(try await client.send(.get, "/mobile/devices?limit=0").status == .badRequest)
            #expect(try await client.send(.get, "/mobile/devices?limit=abc").status == .badRequest)
            // Empty is absent (the default 100), as for the other query parameters.
            #expect(try await client.send(.get, "/mobile/devices?limit=").json["items"]?.arrayValue?.count == 3)
        }
    }
}

/// The server's timestamp format, for expectations.
enum ServerTimeText {
    static func of(_ ms: Int64) -> String {
        // The harness clock starts at 1_780_000_000_000 = 2026-05-28T20:26:40.000Z.
        let base: Int64 = 1_780_000_000_000
        precondition(ms >= base && ms - base < 60_000, "only seconds after the harness start are supported")
        let seconds = 40 + (ms - base) / 1000
        let minutes = 26 + seconds / 60
        let millis = (ms - base) % 1000
        return "2026-05-28T20:\(minutes):\(String(format: "%02d", seconds % 60)).\(String(format: "%03d", millis))Z"
    }
}
