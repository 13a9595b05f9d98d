import Foundation
import Stepwise
@testable import StepwiseSQLite
import Synchronization
import Testing

/// A storage fault a test switches on and off while an engine runs on the database.
enum StorageFault: Sendable, Equatable {
    /// No fault.
    case none
    /// Real `SQLITE_FULL`: `PRAGMA max_page_count` is lowered to the current page count, so
    /// the first write that needs a new page fails as on a full disk.
    case diskFull
    /// Real `SQLITE_READONLY`: `PRAGMA query_only = ON` refuses every write.
    case readOnly
    /// An error with this extended SQLite code thrown by the fault injector before every
    /// statement whose SQL starts with one of `sqlPrefixes` (for codes SQLite cannot be made to
    /// produce on demand, such as `SQLITE_CORRUPT` in the middle of a transaction).
    case injected(code: Int32, sqlPrefixes: [String])
}

/// The switch a test holds; the store's fault injector reads it before every statement.
final class StorageFaultSwitch: Sendable {
    private let state = Mutex(StorageFault.none)
    private let raised = Mutex(0)

    /// How many injected errors were thrown so far.
    var injectedCount: Int { raised.withLock { $0 } }

    /// Counts one injected error.
    func countInjection() { raised.withLock { $0 += 1 } }

    /// The fault in force.
    var fault: StorageFault {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// Opens an `SQLiteExecutionStore` whose fault injector applies `faults` before each statement:
/// the pragmas of ``StorageFault/diskFull`` and ``StorageFault/readOnly`` are set (and reset)
/// on the store's own connection, so SQLite itself produces the error.
func openFaultableStore(
    path: String, faults: StorageFaultSwitch, busyTimeoutMs: Int = 5_000
) throws -> SQLiteExecutionStore {
    let store = try SQLiteExecutionStore(path: path, busyTimeoutMs: busyTimeoutMs)
    let connection = store.connection
    var applied = StorageFault.none
    var applying = false
    store.faultInjector = { [unowned connection] (point: SQLiteFaultPoint) throws(SQLiteError) in
        guard !applying else { return }
        let wanted = faults.fault
        if wanted != applied {
            applying = true
            defer { applying = false }
            if applied == .diskFull { _ = try connection.queryValue("PRAGMA max_page_count = 4294967294") }
            if applied == .readOnly { try connection.execute("PRAGMA query_only = OFF") }
            if wanted == .diskFull {
                let pages = try connection.queryValue("PRAGMA page_count")?.int64Value ?? 1
                _ = try connection.queryValue("PRAGMA max_page_count = \(pages)")
            }
            if wanted == .readOnly { try connection.execute("PRAGMA query_only = ON") }
            applied = wanted
        }
        if case .injected(let code, let prefixes) = wanted, case .step(let sql) = point {
            let statement = sql.trimmingCharacters(in: .whitespacesAndNewlines)
            if let prefix = prefixes.first(where: { statement.hasPrefix($0) }) {
                faults.countInjection()
                throw SQLiteError(extendedCode: code, message: "injected fault before \(prefix)", sql: sql)
            }
        }
    }
    return store
}

/// Every row of the engine's tables, as text, read through a separate read-only connection: two
/// dumps are equal exactly when nothing was written in between.
func databaseDump(_ path: String) throws -> [String] {
    let reader = try SQLiteConnection(path: path, configuration: .init(isReadOnly: true, busyTimeout: .seconds(30)))
    var lines: [String] = []
    for table in ["sequences", "instances", "nodes", "journal", "journal_chunks", "outbox", "dead_letters", "metadata", "command_markers", "change_log"] {
        let rows = try reader.query("SELECT * FROM \(table)")
        lines += rows.map { "\(table): \($0.map { "\($0)" }.joined(separator: " | "))" }.sorted()
    }
    return lines
}

/// Number of rows of `table` (read-only connection).
func rowCount(_ path: String, _ table: String) throws -> Int {
    let reader = try SQLiteConnection(path: path, configuration: .init(isReadOnly: true, busyTimeout: .seconds(30)))
    return Int(try reader.queryValue("SELECT count(*) FROM \(table)")?.int64Value ?? -1)
}

/// A temporary directory holding one database, removed by ``cleanup()``.
struct FaultTestDirectory {
    let url: URL
    var database: String { url.appendingPathComponent("engine.db").path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func cleanup() {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }
}

/// Handler calls recorded as (step, idempotency key), thread-safe.
final class HandlerLog: Sendable {
    private let calls = Mutex<[(step: String, key: String)]>([])

    func record(_ context: StepContext) { calls.withLock { $0.append((context.stepId, context.idempotencyKey)) } }

    /// How many times `step` ran.
    func count(_ step: String) -> Int { calls.withLock { $0.filter { $0.step == step }.count } }

    /// The distinct idempotency keys `step` ran with.
    func keys(_ step: String) -> Set<String> { calls.withLock { Set($0.filter { $0.step == step }.map(\.key)) } }
}

/// The sequence every fault test runs: a step, a wait for a decision, a final step.
let faultSequence = #"""
    {"name": "faults", "version": 1, "blocks": [
      {"type": "step", "id": "prepare", "handler": "work"},
      {"type": "step", "id": "approve", "handler": "work",
       "wait_for_input": {"prompt": "Approve?", "choices": [{"label": "Yes", "value": "yes"}, {"label": "No", "value": "no"}], "store_as": "decision"}},
      {"type": "step", "id": "finish", "handler": "work"}
    ]}
    """#

/// A payload large enough (overflow pages) that committing it always needs new pages.
let bulkyNote = String(repeating: "n", count: 64 * 1024)

/// The engine configuration of the fault tests: the sync outbox on (so outbox rows are written
/// with every transition and can be checked), no sync driver (so no traffic).
func faultConfiguration(operationTimeoutMs: UInt64 = 10_000) -> EngineConfiguration {
    var configuration = EngineConfiguration()
    configuration.syncUrl = "http://127.0.0.1:9/mobile/sync"
    configuration.allowInsecureLocalhost = true
    configuration.deviceId = "fault-device"
    configuration.operationTimeoutMs = operationTimeoutMs
    // The background-loop tests jump the virtual clock 10 s every few real milliseconds: on a
    // loaded machine a handler call can span more than the default timeout of it.
    configuration.handlerTimeoutMs = 365 * 86_400_000
    return configuration
}

/// Opens an engine on `store` with the fault sequence loaded and the `work` handler logging calls.
func openFaultEngine(
    store: sending SQLiteExecutionStore, clock: VirtualClock, log: HandlerLog,
    configuration: EngineConfiguration = faultConfiguration(),
    work: (@Sendable (StepContext) async throws -> JSONValue)? = nil
) async throws -> StepwiseEngine {
    let engine = try StepwiseEngine(store: store, configuration: configuration, clock: clock, randomSeed: 11)
    await engine.registerHandler("work") { context in
        log.record(context)
        if let work { return try await work(context) }
        return ["step": .string(context.stepId)]
    }
    _ = try await engine.loadSequence(json: Array(faultSequence.utf8))
    return engine
}

/// Runs ticks, advancing the virtual clock to each next deadline, until nothing is pending.
func runToRest(_ engine: StepwiseEngine, clock: VirtualClock, maxRounds: Int = 200) async throws {
    for _ in 0..<maxRounds {
        let result = try await engine.runUntilIdle(maxTicks: 100, timeBudgetMs: 30_000)
        if result.hasPendingWork { continue }
        guard let next = result.nextDueAt else { return }
        clock.advance(to: next)
    }
}

/// What a finished instance looks like, compared between a faulty and a fault-free run.
struct RunOutcome: Equatable {
    let state: InstanceState
    let data: JSONObject
    let outputs: JSONObject
    let succeededSteps: [String]
    let receivedInputs: [String]

    init(engine: StepwiseEngine, id: InstanceID) async throws {
        let snapshot = try await engine.instance(id)
        state = snapshot.state
        data = snapshot.data
        outputs = snapshot.outputs
        let history = try await engine.history(of: id)
        succeededSteps = history.filter { $0.kind == .stepSucceeded }.compactMap(\.stepID)
        receivedInputs = history.filter { $0.kind == .inputReceived }.compactMap(\.stepID)
    }
}

/// The outcome of the fault sequence without any fault: the reference the faulty runs must reach.
func faultFreeOutcome(decision: JSONValue) async throws -> RunOutcome {
    let directory = try FaultTestDirectory()
    defer { directory.cleanup() }
    let clock = VirtualClock()
    let log = HandlerLog()
    let store = try SQLiteExecutionStore(path: directory.database)
    let engine = try await openFaultEngine(store: store, clock: clock, log: log)
    let id = try await engine.start("faults", input: ["user": "ada"])
    try await runToRest(engine, clock: clock)
    try await engine.completeStep(instanceId: id, stepId: "approve", output: decision)
    try await runToRest(engine, clock: clock)
    let outcome = try await RunOutcome(engine: engine, id: id)
    await engine.shutdown()
    return outcome
}

/// Checks the shape every storage error must have: code, a message naming the file and the
/// reason, and the reason in the context.
func expectStorageError(
    _ error: StepwiseError?, code: StepwiseError.Code = .storage, reason: String, path: String, mentioning words: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error else {
        Issue.record("expected a StepwiseError", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.message.contains(path), "message does not name the file: \(error.message)", sourceLocation: sourceLocation)
    for word in words {
        #expect(
            error.message.lowercased().contains(word.lowercased()), "message lacks '\(word)': \(error.message)",
            sourceLocation: sourceLocation)
    }
    #expect(error.context["reason"] == .string(reason), "context: \(error.context)", sourceLocation: sourceLocation)
}
