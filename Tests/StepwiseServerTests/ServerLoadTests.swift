import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StepwiseJSON
import StepwiseServer
import Synchronization
import Testing

/// The size of a server load run. CI runs 200 devices for 5 s; the full run is
/// `STEPWISE_SERVER_LOAD_SECONDS=60 swift test --filter ServerLoadTests` (devices:
/// `STEPWISE_SERVER_LOAD_DEVICES`).
struct ServerLoadPlan: Sendable {
    let devices: Int
    let seconds: Int
    let instancesPerDevice = 2
    /// Every `approvalEvery`-th round a device also sends a new approval request.
    let approvalEvery = 5

    static var fromEnvironment: ServerLoadPlan {
        let environment = ProcessInfo.processInfo.environment
        let devices = environment["STEPWISE_SERVER_LOAD_DEVICES"].flatMap { Int($0) } ?? 200
        let seconds = environment["STEPWISE_SERVER_LOAD_SECONDS"].flatMap { Int($0) } ?? 5
        return ServerLoadPlan(devices: min(max(devices, 1), 1_000), seconds: min(max(seconds, 1), 600))
    }
}

/// Latencies and failures of every request, from every device task.
final class LoadFigures: Sendable {
    private let latencies = Mutex<[Duration]>([])
    private let failures = Mutex<[String]>([])
    private let memory = Mutex<[(label: String, bytes: Int?)]>([])

    func record(_ latency: Duration) { latencies.withLock { $0.append(latency) } }
    func fail(_ what: String) { failures.withLock { $0.append(what) } }
    func sampleMemory(_ label: String) { memory.withLock { $0.append((label, residentMemoryBytes())) } }

    var requestCount: Int { latencies.withLock { $0.count } }
    var errors: [String] { failures.withLock { $0 } }

    /// The latency at quantile `q` (0...1), in milliseconds.
    func percentile(_ q: Double) -> Double {
        let sorted = latencies.withLock { $0.sorted() }
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))
        return milliseconds(sorted[index])
    }

    var memoryReport: String {
        memory.withLock { samples in
            samples.map { "\($0.label) \(mebibytes($0.bytes))" }.joined(separator: ", ")
        }
    }
}

/// `VmRSS` of this process in bytes (Linux), `nil` elsewhere.
func residentMemoryBytes() -> Int? {
    #if os(Linux)
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }
    return nil
    #else
    return nil
    #endif
}

func mebibytes(_ bytes: Int?) -> String {
    bytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? "n/a"
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// What one device sent last for each of its instances.
struct SentStatus: Sendable, Equatable {
    let state: String
    let currentStep: String
}

@Suite("Sync server under load (real HTTP on 127.0.0.1)")
struct ServerLoadTests {
    static let states = ["Running", "Waiting", "Paused", "Running", "Waiting"]

    /// 200 devices, each syncing once a second with status updates, approval requests and
    /// command acks, while a resolver answers the approvals: no error, no lost status update.
    @Test("200 devices syncing every second", .timeLimit(.minutes(15)))
    func devicesSyncingEverySecond() async throws {
        let plan = ServerLoadPlan.fromEnvironment
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stepwise-server-load-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let store = try SQLiteSyncServerStore(path: directory.appendingPathComponent("server.db").path, survivesPowerLoss: false)
        try await store.addAPIKey(ServerHarness.key, grant: .tenant(.defaultTenant), now: clock.now())
        let server = SyncServer(store: store, clock: clock)
        let app = server.makeApplication(host: "127.0.0.1", port: 0)
        let figures = LoadFigures()

        try await app.test(.live) { client in
            let port = try #require(client.port)
            for device in 0..<plan.devices {
                #expect(try await client.register(Self.deviceID(device)).status == .created)
            }
            figures.sampleMemory("start")
            let started = ContinuousClock.now
            let lastSent = try await withThrowingTaskGroup(of: [String: SentStatus].self) { group in
                for device in 0..<plan.devices {
                    group.addTask { try await Self.runDevice(device, plan: plan, port: port, started: started, figures: figures) }
                }
                group.addTask {
                    try await Self.resolveApprovals(client, plan: plan, started: started, figures: figures)
                    return [:]
                }
                var all: [String: SentStatus] = [:]
                for try await sent in group { all.merge(sent) { $1 } }
                return all
            }
            let elapsed = ContinuousClock.now - started
            figures.sampleMemory("end")

            // No lost update: the stored status of every (device, instance) is the latest sent.
            var mismatches: [String] = []
            for device in 0..<plan.devices {
                let response = try await client.send(.get, "/mobile/status?device_id=\(Self.deviceID(device))&limit=500")
                let items = response.json["items"]?.arrayValue ?? []
                #expect(items.count == plan.instancesPerDevice)
                for item in items {
                    let key = "\(Self.deviceID(device))/\(item["instance_id"]?.stringValue ?? "")"
                    let stored = SentStatus(
                        state: item["state"]?.stringValue ?? "", currentStep: item["current_step"]?.stringValue ?? "")
                    if lastSent[key] != stored { mismatches.append("\(key): stored \(stored), sent \(String(describing: lastSent[key]))") }
                }
            }
            #expect(lastSent.count == plan.devices * plan.instancesPerDevice)
            #expect(mismatches.isEmpty, "lost updates: \(mismatches.prefix(5))")
            #expect(figures.errors.isEmpty, "errors: \(figures.errors.prefix(5))")
            let approvals = try await client.send(.get, "/mobile/approvals?state=all&limit=500").json["total"]?.exactIntegerValue ?? -1
            let resolved = try await client.send(.get, "/mobile/approvals?state=resolved&limit=500").json["total"]?
                .exactIntegerValue ?? -1
            let perDevice = (plan.seconds + plan.approvalEvery - 1) / plan.approvalEvery
            #expect(approvals == Int64(plan.devices * perDevice), "every approval request stored once")

            let seconds = milliseconds(elapsed) / 1000
            print(
                """
                server load: \(plan.devices) devices × \(plan.seconds) s: \(figures.requestCount) requests in \
                \(String(format: "%.1f", seconds)) s = \(String(format: "%.0f", Double(figures.requestCount) / seconds)) req/s; \
                latency p50 \(String(format: "%.1f", figures.percentile(0.5))) ms, p99 \
                \(String(format: "%.1f", figures.percentile(0.99))) ms, max \(String(format: "%.1f", figures.percentile(1))) ms; \
                errors \(figures.errors.count); approvals \(approvals) (\(resolved) resolved); RSS \(figures.memoryReport)
                """)
        }
    }

    static func deviceID(_ index: Int) -> String { "load-device-\(index)" }

    static func instanceID(device: Int, instance: Int) -> String {
        String(format: "4f1c0000-0000-4000-8000-%06x%06x", device, instance)
    }

    /// One device: its own connection, one sync per second for `plan.seconds` rounds.
    private static func runDevice(
        _ device: Int, plan: ServerLoadPlan, port: Int, started: ContinuousClock.Instant, figures: LoadFigures
    ) async throws -> [String: SentStatus] {
        let id = deviceID(device)
        let connection = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(30)))
        connection.connect()
        var lastSent: [String: SentStatus] = [:]
        var acks: [String] = []
        // Devices are spread over the first second, then each syncs once a second.
        let offset = Duration.milliseconds(1000 * device / max(plan.devices, 1))
        for round in 0..<plan.seconds {
            let due = started + offset + .seconds(round)
            if ContinuousClock.now < due { try await Task.sleep(until: due, clock: .continuous) }
            if device == 0 && round == plan.seconds / 2 { figures.sampleMemory("middle") }
            var statuses: [JSONValue] = []
            for instance in 0..<plan.instancesPerDevice {
                let instanceID = instanceID(device: device, instance: instance)
                let sent = SentStatus(state: states[(round + instance) % states.count], currentStep: "step-\(round)")
                statuses.append(
                    statusUpdate(
                        instanceID, state: sent.state, timestamp: timestamp(round: round), currentStep: sent.currentStep))
                lastSent["\(id)/\(instanceID)"] = sent
            }
            var approvals: [JSONValue] = []
            if round % plan.approvalEvery == 0 {
                approvals.append(approvalRequest(instanceID(device: device, instance: 0), block: "approve-\(round)"))
            }
            let body: JSONValue = [
                "device_id": .string(id), "status_updates": .array(statuses), "approval_requests": .array(approvals),
                "step_delegations": [], "command_acks": .array(acks.map(JSONValue.string)), "command_results": [],
            ]
            let request = TestClient.Request(
                "/mobile/sync", method: .post,
                headers: [.apiKey: ServerHarness.key, .deviceID: id, .contentType: "application/json"],
                body: ByteBuffer(bytes: JSONWriter.bytes(body)))
            let sentAt = ContinuousClock.now
            do {
                let response = try await connection.execute(request)
                figures.record(ContinuousClock.now - sentAt)
                guard response.status == .ok else {
                    figures.fail("\(id) round \(round): HTTP \(response.status.code)")
                    continue
                }
                let json = response.body.flatMap { try? JSONParser.parse(Array($0.readableBytesView)) } ?? .null
                acks = (json["commands"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            } catch {
                figures.fail("\(id) round \(round): \(error)")
            }
        }
        try? await connection.shutdown()
        return lastSent
    }

    /// Resolves pending approvals about twice a second while the devices run (bounded rounds).
    private static func resolveApprovals(
        _ client: any TestClientProtocol, plan: ServerLoadPlan, started: ContinuousClock.Instant, figures: LoadFigures
    ) async throws {
        for round in 0..<(plan.seconds * 2) {
            try await Task.sleep(until: started + .milliseconds(500 * (round + 1)), clock: .continuous)
            let pending = try await client.send(.get, "/mobile/approvals?state=pending&limit=50")
            for item in pending.json["items"]?.arrayValue ?? [] {
                guard let id = item["id"]?.stringValue else { continue }
                let resolved = try await client.send(.post, "/mobile/approvals/\(id)/resolve", json: ["output": ["value": "accepted"]])
                if resolved.status != .ok { figures.fail("resolve \(id): HTTP \(resolved.status.code)") }
            }
        }
    }

    /// RFC 3339 time of a round: a fixed base plus one second per round, so later rounds are newer.
    static func timestamp(round: Int) -> String {
        String(format: "2026-05-19T%02d:%02d:%02d.000Z", 10 + round / 3600, (round / 60) % 60, round % 60)
    }
}
