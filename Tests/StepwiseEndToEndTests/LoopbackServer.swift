import Foundation
import Stepwise
import StepwiseTesting
import StepwiseTorture
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `stepwise` executable built next to the test bundle.
func stepwiseExecutable() throws -> URL { try StepwiseExecutable.url() }

/// Runs `stepwise ARGUMENTS` to completion.
///
/// - Returns: the exit status (128 + the signal when one ended it) and standard output.
@discardableResult
func runStepwise(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let (termination, output) = try await ChildProcess.run(try stepwiseExecutable().path, arguments)
    switch termination {
    case .exited(let status): return (status, output)
    case .signalled(let signal): return (128 + signal, output)
    }
}

/// A scratch folder for one test: the server's database, the publish directory, device databases.
final class Workspace: Sendable {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func path(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// Writes a root key pair with `stepwise keygen` and publishes `sequences` with
    /// `stepwise publish` into `publish/`.
    ///
    /// - Returns: the root public key (base64).
    func publish(_ sequences: [String: String]) async throws -> String {
        let sources = root.appendingPathComponent("sources")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path("root.key")) {
            let keygen = try await runStepwise(["keygen", "root", "--out", root.path])
            guard keygen.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
        var files: [String] = []
        for (name, text) in sequences.sorted(by: { $0.key < $1.key }) {
            let file = sources.appendingPathComponent("\(name).json")
            try Data(text.utf8).write(to: file)
            files.append(file.path)
        }
        let published = try await runStepwise(
            ["publish", "--key", path("root.key"), "--key-id", "root-1", "--out", path("publish")] + files)
        guard published.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return try String(contentsOfFile: path("root.pub"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A real `stepwise serve` process on a loopback port, killed (SIGKILL) at the end.
final class ServerProcess: Sendable {
    static let apiKey = "e2e-tenant-key-0001"
    let child: ChildProcess
    let port: Int
    private let isRunning = Mutex(true)

    /// Starts `stepwise serve` and waits until it prints the port it listens on.
    ///
    /// - Parameters:
    ///   - workspace: holds `server.db` and `publish/`.
    ///   - port: 0 picks a free one; a port number restarts on the same one.
    ///   - credentials: `ID=SECRET` values for step delegations.
    init(workspace: Workspace, port: Int = 0, credentials: [String] = []) throws {
        var arguments = [
            "serve", "--port", String(port), "--db", workspace.path("server.db"), "--api-key", Self.apiKey,
        ]
        if FileManager.default.fileExists(atPath: workspace.path("publish")) {
            arguments += ["--publish-dir", workspace.path("publish")]
        }
        for credential in credentials { arguments += ["--credential", credential] }
        let output = workspace.path("server-\(UUID().uuidString).out")
        child = try ChildProcess(executable: try stepwiseExecutable().path, arguments: arguments, outputFile: output)
        // The first line: "Stepwise sync server listening on http://127.0.0.1:PORT/".
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while !text.contains("\n"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        }
        guard let range = text.range(of: "http://127.0.0.1:"),
            let bound = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            child.send(SIGKILL)
            _ = child.wait()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "server did not start: \(text)"])
        }
        self.port = bound
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Kills the server as a crash would.
    func kill() {
        let wasRunning = isRunning.withLock { running -> Bool in
            defer { running = false }
            return running
        }
        guard wasRunning else { return }
        child.send(SIGKILL)
        _ = child.wait()
    }

    deinit { kill() }

    /// One request to the server's HTTP API with the tenant key.
    ///
    /// - Returns: the status and the parsed JSON body (`null` when empty).
    func request(_ method: String, _ path: String, json: JSONValue? = nil) async throws -> (status: Int, body: JSONValue) {
        var request = URLRequest(url: URL(string: baseURL + path)!, timeoutInterval: 30)
        request.httpMethod = method
        request.setValue(Self.apiKey, forHTTPHeaderField: "x-api-key")
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "content-type")
            request.httpBody = Data(JSONWriter.bytes(json))
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let body = data.isEmpty ? JSONValue.null : try JSONParser.parse(Array(data))
        return (status, body)
    }
}

/// A device: an engine on its own SQLite file, syncing with the server over loopback HTTP.
struct Device {
    /// The credential the server resolves for `credentials://weather`.
    static let secret = "sk-e2e-4242-secret"
    let id: String
    let engine: StepwiseEngine

    /// Opens a device engine.
    ///
    /// - Parameters:
    ///   - transport: the channel's HTTP transport (real `URLSession` by default).
    static func open(
        _ id: String, workspace: Workspace, server: ServerProcess, rootKey: String = "",
        transport: any SyncHTTPTransport = URLSessionSyncTransport()
    ) async throws -> Device {
        try await open(id, workspace: workspace, port: server.port, rootKey: rootKey, transport: transport)
    }

    /// Opens a device engine that syncs with `127.0.0.1:port`, whether or not a server runs there.
    static func open(
        _ id: String, workspace: Workspace, port: Int, rootKey: String = "",
        transport: any SyncHTTPTransport = URLSessionSyncTransport()
    ) async throws -> Device {
        var configuration = EngineConfiguration()
        configuration.syncUrl = "http://127.0.0.1:\(port)/mobile/sync"
        configuration.syncApiKey = ServerProcess.apiKey
        configuration.deviceId = id
        configuration.allowInsecureLocalhost = true
        configuration.rootPublicKey = rootKey
        configuration.operationTimeoutMs = 5_000
        let channel = try SyncChannel(configuration: configuration, transport: transport, appVersion: "1.0.0")
        let store = try SQLiteExecutionStore(path: workspace.path("\(id).db"))
        let engine = try StepwiseEngine(store: store, configuration: configuration, syncChannel: channel)
        await engine.registerHandler("work") { _ in .object(JSONObject()) }
        // Says whether the resolved secret arrived, without recording it.
        await engine.registerHandler("call_api") { context in
            ["authorized": .bool(context.params["key"]?.stringValue == Device.secret)]
        }
        return Device(id: id, engine: engine)
    }

    /// Runs the engine until nothing is runnable or in flight (at most 60 s: on a loaded machine
    /// handlers may be scheduled late, so one bounded window is not enough).
    func settle() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let window = try await engine.runUntilIdle(maxTicks: 50, timeBudgetMs: 1_000)
            if !window.hasPendingWork { return }
        }
    }
}
