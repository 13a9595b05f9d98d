import Foundation
import Stepwise
import StepwiseTesting
import Synchronization
import Testing

/// Records what a device posts and answers as the reference server would: 201 to a
/// registration, an empty command list to a sync, `{"accepted": n}` to telemetry.
private final class RecordingTransport: SyncHTTPTransport {
    struct Post: Sendable {
        let url: URL
        let headers: [String: String]
        let body: JSONValue
    }

    private let posts = Mutex<[Post]>([])

    var recorded: [Post] { posts.withLock { $0 } }

    func bodies(endingWith suffix: String) -> [JSONValue] {
        recorded.filter { $0.url.path.hasSuffix(suffix) }.map(\.body)
    }

    func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8]) {
        let parsed = try JSONParser.parse(body)
        posts.withLock { $0.append(Post(url: url, headers: headers, body: parsed)) }
        if url.path.hasSuffix("/devices/register") { return (201, []) }
        if url.path.hasSuffix("/mobile/sync") { return (200, Array(#"{"commands": [], "sync_interval_secs": 30}"#.utf8)) }
        return (200, JSONWriter.bytes(["accepted": .integer(Int64(parsed["events"]?.arrayValue?.count ?? 0))]))
    }
}

/// `device-registration`, `telemetry-request` (and the sync request they travel with): the bodies
/// a device engine posts, recorded from a real engine on a scratch database through its
/// ``SyncHTTPTransport``.
struct DeviceTrafficSchemaTests {
    /// The test root key of `Fixtures/signing/keys.json` and the handlers of the signed sequence.
    static let fixtureRootKey = "Nz5XgYPm9wWMq6BzPJWhG3hbAqqz7xG2+HwWLMbcr0k="
    static let onboardingHandlers = [
        "collect_preferences", "complete_onboarding", "init_profile", "request_approval", "setup_notifications",
        "show_banner", "show_terms", "validate_email",
    ]

    /// A step, an answered wait, a step that always fails.
    static let sequence = """
        {"name": "telemetry", "version": 3, "blocks": [
          {"type": "step", "id": "greet", "handler": "noop"},
          {"type": "step", "id": "confirm", "handler": "noop", "wait_for_input": {"prompt": "Go?"}},
          {"type": "step", "id": "charge", "handler": "fail", "params": {"message": "card declined", "code": "declined"}}
        ]}
        """

    private static func openEngine(in folder: String, transport: RecordingTransport) throws -> StepwiseEngine {
        var configuration = EngineConfiguration()
        configuration.syncUrl = "https://sync.example.test/mobile/sync"
        configuration.syncApiKey = "device-key"
        configuration.rootPublicKey = fixtureRootKey
        configuration.environment = "staging"
        let channel = try SyncChannel(configuration: configuration, transport: transport, appVersion: "2.1.0")
        return try StepwiseEngine(
            store: try SQLiteExecutionStore(path: folder + "/device.db"), configuration: configuration, syncChannel: channel)
    }

    private static func runUntilSettled(_ engine: StepwiseEngine, _ id: InstanceID) async throws -> InstanceState {
        for _ in 0..<200 {
            let window = try await engine.runUntilIdle(maxTicks: 50, timeBudgetMs: 1_000)
            let state = try await engine.instance(id).state
            if state.isTerminal || (!window.hasPendingWork && state == .waiting) { return state }
        }
        return try await engine.instance(id).state
    }

    /// The registration before the first channel request (no push token yet) and the one after
    /// `registerPushToken` both match; so does the sync request that follows each.
    @Test func registrationBodiesMatchTheSchema() async throws {
        let folder = try DocumentSchemas.scratchFolder("registration")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let transport = RecordingTransport()
        let engine = try Self.openEngine(in: folder, transport: transport)
        _ = try await engine.loadSequence(json: Array(Self.sequence.utf8))
        let id = try await engine.start("telemetry")
        #expect(try await Self.runUntilSettled(engine, id) == .waiting)
        #expect(try await engine.syncChannel().succeeded)
        try await engine.registerPushToken("push-token-1")
        #expect(try await engine.syncChannel().succeeded)
        await engine.shutdown()

        let registrations = transport.bodies(endingWith: "/devices/register")
        #expect(registrations.count == 2)
        #expect(registrations.first?["push_token"] == .null && registrations.last?["push_token"] == "push-token-1")
        for body in registrations {
            try DocumentSchemas.expectValid(body, SchemaCatalog.deviceRegistration, "registration")
        }
        let syncs = transport.bodies(endingWith: "/mobile/sync")
        #expect(!syncs.isEmpty)
        for body in syncs {
            try DocumentSchemas.expectValid(body, SchemaCatalog.syncRequest, "sync request")
        }

        let body = try #require(registrations.last)
        let path = SchemaCatalog.deviceRegistration
        try DocumentSchemas.expectRejected(body.replacing("/platform", with: "iOS"), path, near: "/platform")
        try DocumentSchemas.expectRejected(body.replacing("/push_token", with: 42), path, near: "/push_token")
        try DocumentSchemas.expectRejected(body.replacing("/app_version", with: nil), path, near: "")
        try DocumentSchemas.expectRejected(body.renaming("/device_id", to: "deviceId"), path, near: "")
        try DocumentSchemas.expectRejected(body.replacing("/device_id", with: ""), path, near: "/device_id")
    }

    /// A flush after a manifest sync and an instance that starts, waits, is answered and fails:
    /// every event type but `instance_completed` and `instance_cancelled`, each payload checked
    /// against the definition of its type.
    @Test func telemetryBodyMatchesTheSchema() async throws {
        let folder = try DocumentSchemas.scratchFolder("telemetry")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let transport = RecordingTransport()
        let engine = try Self.openEngine(in: folder, transport: transport)
        for name in Self.onboardingHandlers { await engine.registerHandler(name) { _ in .object(JSONObject()) } }
        try await engine.setDeviceContext(DeviceContext(osName: "Linux", osVersion: "6.1", appVersion: "2.1.0"))
        let fetcher = InMemoryManifestFetcher()
        try fetcher.serveDirectory(URL(fileURLWithPath: PackageFiles.path("Fixtures/signing/valid")), at: "https://cdn.example.test/app/")
        let synced = try await engine.sync(manifestURL: URL(string: "https://cdn.example.test/app/manifest.json")!, fetcher: fetcher)
        #expect(synced.status == .applied)

        _ = try await engine.loadSequence(json: Array(Self.sequence.utf8))
        let id = try await engine.start("telemetry")
        #expect(try await Self.runUntilSettled(engine, id) == .waiting)
        try await engine.completeStep(instanceId: id, stepId: "confirm", output: ["value": "yes"])
        #expect(try await Self.runUntilSettled(engine, id) == .failed)
        let flushed = try await engine.flushTelemetry(
            endpoint: URL(string: "https://telemetry.example.test/v1/events")!, transport: transport)
        await engine.shutdown()
        #expect(flushed.sent > 0)

        let body = try #require(transport.bodies(endingWith: "/v1/events").first)
        try DocumentSchemas.expectValid(body, SchemaCatalog.telemetryRequest, "telemetry body")
        let events = body["events"]?.arrayValue ?? []
        let types = Set(events.compactMap { $0["event_type"]?.stringValue })
        #expect(types.isSuperset(of: ["manifest_applied", "instance_started", "step_started", "step_completed", "step_failed", "instance_failed"]))
        for (index, event) in events.enumerated() {
            let type = event["event_type"]?.stringValue ?? ""
            let definition = type == "manifest_applied" ? "manifestAppliedPayload" : type.hasPrefix("step_") ? "stepPayload" : "instancePayload"
            let payload = try JSONParser.parse(event["payload"]?.stringValue ?? "")
            try DocumentSchemas.expectValid(payload, SchemaCatalog.telemetryRequest, definition: definition, "events[\(index)].payload (\(type))")
        }

        let path = SchemaCatalog.telemetryRequest
        try DocumentSchemas.expectRejected(body.replacing("/events/0/event_type", with: "step_retried"), path, near: "/events/0/event_type")
        try DocumentSchemas.expectRejected(body.replacing("/events/0/payload", with: ["instance_id": "x"]), path, near: "/events/0/payload")
        try DocumentSchemas.expectRejected(body.replacing("/events/0/timestamp", with: 1_767_225_600_000), path, near: "/events/0/timestamp")
        try DocumentSchemas.expectRejected(body.replacing("/device/sdk_version", with: nil), path, near: "/device")
        try DocumentSchemas.expectRejected(body.renaming("/device/os_name", to: "os"), path, near: "/device")
        try DocumentSchemas.expectRejected(body.replacing("/events", with: []), path, near: "/events")

        let step = try #require(events.first { $0["event_type"] == "step_failed" })
        let stepPayload = try JSONParser.parse(step["payload"]?.stringValue ?? "")
        try DocumentSchemas.expectRejected(stepPayload.replacing("/step_id", with: nil), path, definition: "stepPayload", near: "")
        try DocumentSchemas.expectRejected(
            stepPayload.replacing("/params", with: ["card": "4242"]), path, definition: "stepPayload", near: "")
        try DocumentSchemas.expectRejected(
            stepPayload.replacing("/sequence_version", with: "3"), path, definition: "stepPayload", near: "/sequence_version")
        let started = try #require(events.first { $0["event_type"] == "instance_started" })
        let instancePayload = try JSONParser.parse(started["payload"]?.stringValue ?? "")
        try DocumentSchemas.expectRejected(
            instancePayload.replacing("/step_id", with: "greet"), path, definition: "instancePayload", near: "")
        try DocumentSchemas.expectRejected(
            instancePayload.replacing("/data", with: ["email": "a@b.c"]), path, definition: "instancePayload", near: "")
    }
}
