import Foundation
import Stepwise
import Synchronization
import Testing

/// A temporary database file, removed with its WAL files when the value is dropped by `cleanup()`.
struct TemporaryDatabase {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-test-\(UUID().uuidString).db").path
    }

    func cleanup() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

extension EngineConfiguration {
    /// The defaults, except a tick that waits up to ten minutes of real time for the calls it
    /// started: the tests drive a virtual clock, and a tick's budget is real time, which a
    /// loaded two-core machine running the whole suite can spend before a handler is scheduled.
    static var forTests: EngineConfiguration {
        var configuration = EngineConfiguration()
        configuration.maxTickDurationMs = 600_000
        return configuration
    }
}

/// Opens an engine on `database` with a virtual clock and the given handlers.
func openEngine(
    _ database: TemporaryDatabase, clock: VirtualClock, configuration: EngineConfiguration = .forTests,
    handlers: [String: @Sendable (StepContext) async throws -> JSONValue] = [:]
) async throws -> StepwiseEngine {
    let engine = try StepwiseEngine(databasePath: database.path, configuration: configuration, clock: clock, randomSeed: 7)
    for (name, body) in handlers { await engine.registerHandler(name, body) }
    return engine
}

/// Runs ticks, advancing the virtual clock to each next deadline, until nothing is pending.
func runToRest(_ engine: StepwiseEngine, clock: VirtualClock, maxRounds: Int = 200) async throws {
    for _ in 0..<maxRounds {
        let result = try await engine.runUntilIdle(maxTicks: 100, timeBudgetMs: 5_000)
        if result.hasPendingWork { continue }
        guard let next = result.nextDueAt else { return }
        clock.advance(to: next)
    }
}

/// Counts calls per key.
final class Counter: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func hit(_ key: String) { counts.withLock { $0[key, default: 0] += 1 } }
    func count(_ key: String) -> Int { counts.withLock { $0[key, default: 0] } }
}

/// Collects listener events as text lines.
final class RecordingListener: EngineListener {
    let lines = Mutex<[String]>([])
    func onInstanceCompleted(_ instanceId: InstanceID, data: JSONValue) async { add("completed") }
    func onInstanceFailed(_ instanceId: InstanceID, error: String) async { add("failed: \(error)") }
    func onInstanceCancelled(_ instanceId: InstanceID) async { add("cancelled") }
    func onStepPending(_ step: PendingStep) async { add("pending \(step.stepId) \(step.prompt)") }
    func onStepStarted(_ instanceId: InstanceID, stepId: String, attempt: Int) async { add("started \(stepId) \(attempt)") }
    func onStepCompleted(_ instanceId: InstanceID, stepId: String, output: JSONValue) async { add("completed \(stepId)") }
    func onStepFailed(_ instanceId: InstanceID, stepId: String, error: String, willRetry: Bool) async {
        add("failed \(stepId) \(willRetry)")
    }
    private func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// Waits (yielding) until `condition` holds or about two seconds pass.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<2000 {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return false
}

let approvalSequence = #"""
    {"name": "approval", "version": 1, "blocks": [
      {"type": "step", "id": "prepare", "handler": "work"},
      {"type": "step", "id": "approve", "handler": "work",
       "wait_for_input": {"prompt": "Approve?", "choices": [{"label": "Yes", "value": "yes"}, {"label": "No", "value": "no"}], "store_as": "decision"}},
      {"type": "step", "id": "finish", "handler": "work"}
    ]}
    """#

/// An engine with a 60 s instance lifetime, one finished instance of `q` and one of
/// `approval` stopped at its wait (`stuck`), run to rest: the set-up of the GC and lifetime tests.
func engineWithFinishedAndStuckInstances(
    _ db: TemporaryDatabase, clock: VirtualClock
) async throws -> (engine: StepwiseEngine, configuration: EngineConfiguration, done: InstanceID, stuck: InstanceID) {
    var configuration = EngineConfiguration.forTests
    configuration.maxInstanceLifetimeSecs = 60
    let engine = try await openEngine(db, clock: clock, configuration: configuration, handlers: ["work": { _ in [:] }])
    _ = try await engine.loadSequence(json: Array(approvalSequence.utf8))
    let quick = #"{"name": "q", "version": 1, "blocks": [{"type": "step", "id": "s", "handler": "work"}]}"#
    _ = try await engine.loadSequence(json: Array(quick.utf8))
    let done = try await engine.start("q")
    let stuck = try await engine.start("approval")
    try await runToRest(engine, clock: clock)
    return (engine, configuration, done, stuck)
}
