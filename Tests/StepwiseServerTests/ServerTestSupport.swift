import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StepwiseJSON
import StepwiseServer
import Synchronization

/// A clock the tests move by hand: TTL and expiry are tested without waiting.
final class ManualClock: SyncServerClock {
    private let value: Mutex<Int64>

    init(_ start: Int64 = 1_780_000_000_000) { value = Mutex(start) }

    func now() -> Int64 { value.withLock { $0 } }

    func advance(milliseconds: Int64) { value.withLock { $0 += milliseconds } }

    func advance(seconds: Int64) { advance(milliseconds: seconds * 1000) }
}

/// Records pushes instead of sending them.
final class RecordingPushSender: PushSender {
    private let pushes = Mutex<[SilentPush]>([])

    func send(_ push: SilentPush) { pushes.withLock { $0.append(push) } }

    var sent: [SilentPush] { pushes.withLock { $0 } }
}

extension HTTPField.Name {
    static let apiKey = HTTPField.Name("x-api-key")!
    static let deviceID = HTTPField.Name("x-device-id")!
    static let tenantID = HTTPField.Name("x-tenant-id")!
}

/// A server on a temporary SQLite file with three keys: tenant `default`, tenant `other`, admin.
struct ServerHarness: Sendable {
    static let key = "test-key-default"
    static let otherKey = "test-key-other"
    static let adminKey = "test-key-admin"
    static let otherTenant = TenantID(rawValue: "other")!

    let directory: URL
    let store: SQLiteSyncServerStore
    let clock: ManualClock
    let push: RecordingPushSender
    let server: SyncServer

    /// Runs `body` with a fresh server and a router test client; removes the files afterwards.
    static func run(
        configure: (inout SyncServerConfiguration) -> Void = { _ in }, credentials: CredentialStore = CredentialStore(),
        publishDirectory: PublishDirectory? = nil,
        _ body: @Sendable (ServerHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stepwise-server-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let store = try SQLiteSyncServerStore(path: directory.appendingPathComponent("server.db").path, survivesPowerLoss: false)
        try await store.addAPIKey(key, grant: .tenant(.defaultTenant), now: clock.now())
        try await store.addAPIKey(otherKey, grant: .tenant(otherTenant), now: clock.now())
        try await store.addAPIKey(adminKey, grant: .admin, now: clock.now())
        var configuration = SyncServerConfiguration()
        configure(&configuration)
        let push = RecordingPushSender()
        let server = SyncServer(
            store: store, configuration: configuration, clock: clock, credentials: credentials, pushSender: push,
            publishDirectory: publishDirectory)
        let harness = ServerHarness(directory: directory, store: store, clock: clock, push: push, server: server)
        let app = Application(router: server.makeRouter())
        try await app.test(.router) { client in try await body(harness, client) }
    }
}

extension TestClientProtocol {
    /// Sends a request with `x-api-key` (unless `key` is nil) and an optional JSON body.
    func send(
        _ method: HTTPRequest.Method, _ uri: String, key: String? = ServerHarness.key, headers: HTTPFields = [:],
        json: JSONValue? = nil, body: String? = nil
    ) async throws -> TestResponse {
        var fields = headers
        if let key { fields[.apiKey] = key }
        var buffer: ByteBuffer?
        if let json {
            fields[.contentType] = "application/json"
            buffer = ByteBuffer(bytes: JSONWriter.bytes(json))
        } else if let body {
            buffer = ByteBuffer(string: body)
        }
        return try await execute(uri: uri, method: method, headers: fields, body: buffer)
    }

    /// Registers a device for the default tenant (or `key`'s).
    @discardableResult
    func register(_ deviceID: String, key: String = ServerHarness.key, pushToken: String? = nil) async throws -> TestResponse {
        var body: JSONObject = ["device_id": .string(deviceID), "platform": "ios", "app_version": "1.0.0"]
        body["push_token"] = pushToken.map(JSONValue.string) ?? .null
        return try await send(.post, "/mobile/devices/register", key: key, json: .object(body))
    }

    /// Sends a sync request and returns the response.
    func sync(
        _ deviceID: String, key: String = ServerHarness.key, statuses: [JSONValue] = [], approvals: [JSONValue] = [],
        delegations: [JSONValue] = [], acks: [String] = [], results: [JSONValue] = []
    ) async throws -> TestResponse {
        try await send(
            .post, "/mobile/sync", key: key, headers: [.deviceID: deviceID],
            json: [
                "device_id": .string(deviceID), "status_updates": .array(statuses), "approval_requests": .array(approvals),
                "step_delegations": .array(delegations), "command_acks": .array(acks.map(JSONValue.string)),
                "command_results": .array(results),
            ])
    }
}

extension TestResponse {
    /// The body parsed as JSON (`null` when empty or not JSON).
    var json: JSONValue {
        guard body.readableBytes > 0, let value = try? JSONParser.parse(Array(body.readableBytesView)) else { return .null }
        return value
    }

    /// Whether the body is empty.
    var isBodyEmpty: Bool { body.readableBytes == 0 }

    /// The body as text.
    var text: String { String(buffer: body) }

    /// The `error` message of an error body.
    var errorMessage: String? { json["error"]?.stringValue }
}

/// A status update as a device sends it.
func statusUpdate(
    _ instanceID: String, state: String = "Running", timestamp: String = "2026-05-19T10:30:00.000Z",
    currentStep: String? = "show_terms", steps: JSONValue = []
) -> JSONValue {
    [
        "instance_id": .string(instanceID), "sequence_name": "onboarding-flow", "sequence_version": 1, "state": .string(state),
        "current_step": currentStep.map(JSONValue.string) ?? .null, "handler": currentStep.map(JSONValue.string) ?? .null,
        "steps": steps, "error": nil, "parent_instance_id": nil, "timestamp": .string(timestamp),
        "context_summary": ["secret_context": "must-not-be-stored"],
    ]
}

/// An approval request as a device sends it.
func approvalRequest(
    _ instanceID: String, block: String = "show_terms", prompt: String = "Accept the terms?", timeout: Int64? = 300,
    choices: JSONValue = [["label": "Accept", "value": "accepted"], ["label": "Decline", "value": "declined"]]
) -> JSONValue {
    [
        "instance_id": .string(instanceID), "block_id": .string(block), "sequence_name": "onboarding-flow",
        "prompt": .string(prompt), "choices": choices, "store_as": "terms_decision",
        "timeout_seconds": timeout.map(JSONValue.integer) ?? .null,
        "metadata": ["wait_id": "w1", "handler": .string(block), "iteration": "_", "since": "2026-05-19T10:30:00.004Z"],
    ]
}

let instanceA = "4f1c0000-0000-4000-8000-00000000000a"
let instanceB = "4f1c0000-0000-4000-8000-00000000000b"
