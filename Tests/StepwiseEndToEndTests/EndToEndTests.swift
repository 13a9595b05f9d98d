import Foundation
import Stepwise
import Synchronization
import Testing

let approvalFlow = #"""
    {"name": "approval", "version": 1, "blocks": [
      {"type": "step", "id": "prepare", "handler": "work"},
      {"type": "step", "id": "approve", "handler": "work",
       "wait_for_input": {"prompt": "Ship it?", "choices": [{"label": "Yes", "value": "yes"}, {"label": "No", "value": "no"}],
                          "store_as": "decision"}},
      {"type": "router", "id": "route", "routes": [
        {"condition": "context.data.decision == 'yes'", "blocks": [{"type": "step", "id": "ship", "handler": "work"}]}],
       "default": [{"type": "step", "id": "drop", "handler": "work"}]}
    ]}
    """#

let quickFlow = #"""
    {"name": "quick", "version": 1, "blocks": [
      {"type": "step", "id": "one", "handler": "work"},
      {"type": "step", "id": "two", "handler": "work"},
      {"type": "step", "id": "three", "handler": "work"}
    ]}
    """#

let weatherFlow = #"""
    {"name": "weather", "version": 1, "blocks": [
      {"type": "step", "id": "call_api", "handler": "call_api", "params": {"key": "credentials://weather"}}
    ]}
    """#

/// A real `stepwise serve` process and real device engines over loopback HTTP (SYNC.md).
/// Every request goes to 127.0.0.1 only; every loop is bounded.
@Suite("End to end: a sync server process and device engines over loopback", .serialized)
struct EndToEndTests {
    @Test func approvalRoundTrip() async throws {
        let workspace = try Workspace()
        let root = try await workspace.publish(["approval": approvalFlow])
        let server = try ServerProcess(workspace: workspace)
        let device = try await Device.open("phone-1", workspace: workspace, server: server, rootKey: root)

        // The sequence comes from the server's publish directory, verified with the root key.
        let synced = try await device.engine.sync(manifestURL: URL(string: server.baseURL + "/manifests/manifest.json")!)
        #expect(synced.status == .applied && synced.added == 1)
        let id = try await device.engine.start("approval")
        try await device.settle()
        #expect(try await device.engine.instance(id).state == .waiting)

        // The wait reaches the server as a pending approval with its choices.
        #expect(try await device.engine.syncChannel().succeeded)
        let pending = try await server.request("GET", "/mobile/approvals?state=pending")
        let approval = try #require(pending.body["items"]?[0])
        #expect(approval["block_id"] == "approve" && approval["instance_id"] == .string(id.rawValue))
        #expect(approval["choices"]?[1]?["value"] == "no" && approval["device_id"] == "phone-1")

        // Resolving it on the server queues complete_step; the device continues on the next sync.
        let approvalID = try #require(approval["id"]?.stringValue)
        let resolved = try await server.request("POST", "/mobile/approvals/\(approvalID)/resolve", json: ["output": ["value": "yes"]])
        #expect(resolved.status == 200)
        let round = try await device.engine.syncChannel()
        #expect(round.succeeded && round.commandsExecuted == 1)
        try await device.settle()
        let done = try await device.engine.instance(id)
        #expect(done.state == .completed && done.data["decision"] == "yes" && done.outputs["ship"] != nil)

        // The final status reaches the server with the step timeline.
        #expect(try await device.engine.syncChannel().succeeded)
        let status = try await server.request("GET", "/mobile/status?device_id=phone-1")
        let row = try #require(status.body["items"]?.arrayValue?.first { $0["instance_id"] == .string(id.rawValue) })
        #expect(row["state"] == "Completed")
        #expect(row["steps"]?.arrayValue?.map { $0["block_id"] } == ["prepare", "approve", "route", "ship", "drop"])
        await device.engine.shutdown()
    }

    @Test func theCLIRunsSyncsAndResumesAnApprovalResolvedOnTheServer() async throws {
        let workspace = try Workspace()
        let server = try ServerProcess(workspace: workspace)
        let file = workspace.path("approval.json")
        try Data(approvalFlow.utf8).write(to: URL(fileURLWithPath: file))
        let db = workspace.path("cli.db")
        // Run without any sync configuration: the instance stops at its wait.
        let run = try await runStepwise(["run", file, "--db", db])
        #expect(run.status == 3, "\(run.output)")
        let sync = [
            "sync", "--sync-url", server.baseURL + "/mobile/sync", "--api-key", ServerProcess.apiKey,
            "--allow-insecure-localhost", "--device-id", "laptop", "--db", db,
        ]
        // The first sync sends what the database already holds: the status and the open wait.
        let first = try await runStepwise(sync)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("2 rows delivered"), "\(first.output)")
        let pending = try await server.request("GET", "/mobile/approvals?state=pending")
        let approval = try #require(pending.body["items"]?.arrayValue?.first { $0["device_id"] == "laptop" })
        let approvalID = try #require(approval["id"]?.stringValue)
        #expect(try await server.request("POST", "/mobile/approvals/\(approvalID)/resolve", json: ["output": ["value": "yes"]]).status == 200)
        let second = try await runStepwise(sync)
        #expect(second.output.contains("1 command executed"), "\(second.output)")
        let resumed = try await runStepwise(["resume", "--db", db])
        #expect(resumed.status == 0, "\(resumed.output)")
        // The instance finished under an engine without a channel; the outbox kept its status.
        let third = try await runStepwise(sync)
        #expect(third.status == 0, "\(third.output)")
        let status = try await server.request("GET", "/mobile/status?device_id=laptop")
        #expect(status.body["items"]?[0]?["state"] == "Completed")
        // An unreachable server fails the round trip with status 1 and loses nothing.
        server.kill()
        let offline = try await runStepwise(sync)
        #expect(offline.status == 1, "\(offline.output)")
    }

    @Test func anOfflineDeviceCatchesUpInOneSync() async throws {
        let workspace = try Workspace()
        // Nothing listens yet: the device works offline on its port-to-be.
        let probe = try ServerProcess(workspace: workspace)
        let port = probe.port
        probe.kill()
        let device = try await Device.open("phone-2", workspace: workspace, port: port)
        _ = try await device.engine.loadSequence(json: Array(quickFlow.utf8))
        var ids: [InstanceID] = []
        for _ in 0..<3 {
            ids.append(try await device.engine.start("quick"))
            try await device.settle()
        }
        let offline = try await device.engine.syncChannel()
        #expect(!offline.succeeded, "nothing listens")
        for id in ids { #expect(try await device.engine.instance(id).state == .completed) }

        // The server comes up on that port: one sync delivers the latest state of every instance.
        let server = try ServerProcess(workspace: workspace, port: port)
        let online = try await device.engine.syncChannel()
        #expect(online.succeeded && online.requests == 1 && online.rowsDelivered == 3, "one sync request, every status in it")
        let status = try await server.request("GET", "/mobile/status?device_id=phone-2")
        let states = status.body["items"]?.arrayValue?.compactMap { $0["state"]?.stringValue } ?? []
        #expect(states == ["Completed", "Completed", "Completed"])
        await device.engine.shutdown()
    }

    @Test func theServerRestartsMidSyncAndNothingIsLost() async throws {
        let workspace = try Workspace()
        let root = try await workspace.publish(["approval": approvalFlow])
        var server = try ServerProcess(workspace: workspace)
        let port = server.port
        let device = try await Device.open("phone-3", workspace: workspace, server: server, rootKey: root)
        _ = try await device.engine.sync(manifestURL: URL(string: server.baseURL + "/manifests/manifest.json")!)
        let id = try await device.engine.start("approval")
        try await device.settle()
        #expect(try await device.engine.syncChannel().succeeded)

        // The server dies; the device keeps working and its sync fails without dropping a row.
        server.kill()
        let second = try await device.engine.start("approval")
        try await device.settle()
        let failed = try await device.engine.syncChannel()
        #expect(!failed.succeeded)

        // Back on the same port and database: the pending approval survived, the new one arrives.
        server = try ServerProcess(workspace: workspace, port: port)
        #expect(try await device.engine.syncChannel().succeeded)
        let pending = try await server.request("GET", "/mobile/approvals?state=pending&device_id=phone-3")
        let instances = Set(pending.body["items"]?.arrayValue?.compactMap { $0["instance_id"]?.stringValue } ?? [])
        #expect(instances == [id.rawValue, second.rawValue])
        await device.engine.shutdown()
    }

    @Test func aCommandDeliveredTwiceRunsOnce() async throws {
        let workspace = try Workspace()
        let server = try ServerProcess(workspace: workspace)
        let transport = DuplicatingTransport()
        let device = try await Device.open("phone-4", workspace: workspace, server: server, transport: transport)
        _ = try await device.engine.loadSequence(json: Array(quickFlow.utf8))
        #expect(try await device.engine.syncChannel().succeeded, "registers the device")

        let queued = try await server.request(
            "POST", "/mobile/commands",
            json: ["device_id": "phone-4", "command_type": "start_workflow", "payload": ["sequence_name": "quick"]])
        #expect(queued.status == 201)
        // The response with the command is delivered, then delivered again (a replaying proxy).
        _ = try await device.engine.syncChannel()
        _ = try await device.engine.syncChannel()
        #expect(transport.duplicatesDelivered == 1)
        try await device.settle()
        let started = try await device.engine.instances(filter: InstanceFilter(sequenceName: "quick"), limit: 10, after: nil)
        #expect(started.items.count == 1, "executed once")
        await device.engine.shutdown()
    }

    @Test func aTamperedSequenceIsRejectedWhileTheRestApplies() async throws {
        let workspace = try Workspace()
        let root = try await workspace.publish(["approval": approvalFlow, "quick": quickFlow])
        // Change one published artifact after signing.
        let artifacts = try FileManager.default.contentsOfDirectory(atPath: workspace.path("publish/sequences"))
        let quickFile = try #require(
            artifacts.first { name in
                name.hasSuffix(".json")
                    && (try? String(contentsOfFile: workspace.path("publish/sequences/\(name)"), encoding: .utf8))?
                        .contains(#""name":"quick""#) == true
            })
        let tamperedPath = workspace.path("publish/sequences/\(quickFile)")
        let original = try String(contentsOfFile: tamperedPath, encoding: .utf8)
        try Data(original.replacingOccurrences(of: #""id":"two""#, with: #""id":"tw0""#).utf8).write(
            to: URL(fileURLWithPath: tamperedPath))

        let server = try ServerProcess(workspace: workspace)
        let device = try await Device.open("phone-5", workspace: workspace, server: server, rootKey: root)
        let result = try await device.engine.sync(manifestURL: URL(string: server.baseURL + "/manifests/manifest.json")!)
        let outcomes = Dictionary(uniqueKeysWithValues: result.entries.map { ($0.name, $0.outcome) })
        #expect(outcomes == ["approval": .installed, "quick": .hashMismatch])
        #expect(result.status == .applied && result.added == 1 && result.signatureFailures == 1)
        #expect(await device.engine.loadedSequences().map(\.key.name) == ["approval"])
        await device.engine.shutdown()
    }

    @Test func credentialsAreResolvedByTheServer() async throws {
        let workspace = try Workspace()
        let server = try ServerProcess(workspace: workspace, credentials: ["weather=\(Device.secret)"])
        let device = try await Device.open("phone-6", workspace: workspace, server: server)
        _ = try await device.engine.loadSequence(json: Array(weatherFlow.utf8))
        let id = try await device.engine.start("weather")
        // The run loop's sync sends the delegation; the server answers with step_result in the
        // follow-up request of the same cycle. Bounded: at most three more cycles.
        try await device.settle()
        for _ in 0..<3 where try await device.engine.instance(id).state != .completed {
            _ = try await device.engine.syncChannel()
            try await device.settle()
        }
        let done = try await device.engine.instance(id)
        #expect(done.state == .completed && done.outputs["call_api"] == ["authorized": true])
        await device.engine.shutdown()
        let bytes = ["", "-wal"].reduce(into: Data()) {
            $0 += FileManager.default.contents(atPath: workspace.path("phone-6.db") + $1) ?? Data()
        }
        #expect(bytes.range(of: Data(Device.secret.utf8)) == nil, "the secret reached the device database")
    }
}

/// A real HTTP transport whose first response carrying commands is delivered a second time with
/// the next response, as a replaying proxy would.
final class DuplicatingTransport: SyncHTTPTransport {
    private let inner = URLSessionSyncTransport()
    private let state = Mutex<(replay: [JSONValue], duplicates: Int, done: Bool)>(([], 0, false))
    var duplicatesDelivered: Int { state.withLock { $0.duplicates } }

    func post(_ url: URL, headers: [String: String], body: [UInt8], timeoutMs: UInt64) async throws -> (Int, [UInt8]) {
        let (status, bytes) = try await inner.post(url, headers: headers, body: body, timeoutMs: timeoutMs)
        guard url.path.hasSuffix("/sync"), status == 200, case .object(var response)? = try? JSONParser.parse(bytes),
            let commands = response["commands"]?.arrayValue
        else { return (status, bytes) }
        let replay = state.withLock { s -> [JSONValue] in
            if s.done { return [] }
            if !s.replay.isEmpty {
                s.done = true
                s.duplicates += 1
                return s.replay
            }
            if !commands.isEmpty { s.replay = commands }
            return []
        }
        guard !replay.isEmpty else { return (status, bytes) }
        response["commands"] = .array(replay + commands)
        return (status, JSONWriter.bytes(.object(response)))
    }
}

@Suite("The stepwise executable's exit statuses")
struct ExecutableExitStatusTests {
    @Test(arguments: [["verify-manifest"], ["instances", "--limit", "abc"], ["show"], ["no-such-command"], ["run", "--bogus"]])
    func unusableArgumentsExitTwo(_ arguments: [String]) async throws {
        let result = try await runStepwise(arguments)
        #expect(result.status == 2, "\(arguments): \(result.output)")
    }

    @Test func helpExitsZero() async throws {
        #expect(try await runStepwise(["--help"]).status == 0)
        #expect(try await runStepwise(["sync", "--help"]).status == 0)
    }
}

@Suite("stepwise serve")
struct ServeCommandTests {
    /// A server that cannot listen exits 2 and leaves no database behind.
    @Test func aBusyPortIsNamedAndLeavesNoFiles() async throws {
        let workspace = try Workspace()
        let running = try ServerProcess(workspace: workspace)
        defer { running.kill() }
        let db = workspace.path("second.db")
        let result = try await runStepwise(["serve", "--port", String(running.port), "--db", db])
        #expect(result.status == 2)
        for path in [db, db + "-wal", db + "-shm", db + ".secrets-key"] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) was left behind")
        }
    }
}
