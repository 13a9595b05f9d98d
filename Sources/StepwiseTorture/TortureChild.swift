import Foundation
import Stepwise
import Synchronization

/// Where a torture child kills itself.
public enum CrashPoint: Sendable, Hashable, CustomStringConvertible {
    /// Right after the N-th committed transaction (1-based).
    case afterCommit(Int)
    /// Before the N-th SQL statement step, inside a transaction or not.
    case beforeStatement(Int)
    /// Inside the N-th handler invocation, after it was logged.
    case insideHandler(Int)

    public var description: String {
        switch self {
        case .afterCommit(let n): "after-commit:\(n)"
        case .beforeStatement(let n): "statement:\(n)"
        case .insideHandler(let n): "handler:\(n)"
        }
    }

    /// Parses the text form.
    public init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let n = Int(parts[1]), n > 0 else { return nil }
        switch parts[0] {
        case "after-commit": self = .afterCommit(n)
        case "statement": self = .beforeStatement(n)
        case "handler": self = .insideHandler(n)
        default: return nil
        }
    }
}

/// The files a torture child writes next to its database.
public struct TortureFiles: Sendable {
    /// The directory.
    public let directory: String
    /// Creates the file set in `directory`.
    public init(directory: String) { self.directory = directory }
    var database: String { directory + "/run.db" }
    /// `<run> <idempotency key>` per handler invocation.
    var handlers: String { directory + "/handlers.log" }
    /// The last journal sequence committed before run `run` started.
    func startSequence(run: Int) -> String { directory + "/start-sequence-\(run).txt" }
    /// One line per listener event.
    var events: String { directory + "/events.log" }
    /// `commits statements handlers` of a complete run.
    var counts: String { directory + "/counts.txt" }
}

/// The child process side: runs the workload to the end, or dies at a crash point.
public enum TortureChild {
    final class Counters: Sendable {
        let values = Mutex<(commits: Int, statements: Int, handlers: Int)>((0, 0, 0))
    }

    /// Listener that logs events.
    struct EventLog: EngineListener {
        let path: String
        func onInstanceCompleted(_ instanceId: InstanceID, data: JSONValue) async { AppendLog.append("completed \(instanceId)", to: path) }
        func onInstanceFailed(_ instanceId: InstanceID, error: String) async { AppendLog.append("failed \(instanceId)", to: path) }
        func onInstanceCancelled(_ instanceId: InstanceID) async { AppendLog.append("cancelled \(instanceId)", to: path) }
        func onStepPending(_ step: PendingStep) async { AppendLog.append("pending \(step.instanceId) \(step.waitId)", to: path) }
        func onStepStarted(_ instanceId: InstanceID, stepId: String, attempt: Int) async {
            AppendLog.append("started \(instanceId) \(stepId) \(attempt)", to: path)
        }
        func onStepCompleted(_ instanceId: InstanceID, stepId: String, output: JSONValue) async {
            AppendLog.append("stepcompleted \(instanceId) \(stepId)", to: path)
        }
        func onStepFailed(_ instanceId: InstanceID, stepId: String, error: String, willRetry: Bool) async {
            AppendLog.append("stepfailed \(instanceId) \(stepId)", to: path)
        }
    }

    /// Runs the workload in `files.directory`; dies at `crash` if given; `run` labels the logs.
    ///
    /// - Throws: ``StepwiseError`` when the engine fails.
    public static func run(files: TortureFiles, crash: CrashPoint?, run: Int) async throws {
        let counters = Counters()
        let store = try SQLiteExecutionStore(path: files.database)
        // Everything in the journal up to here was committed by earlier runs.
        let lastSequence = try store.journal(after: 0, limit: 10_000_000).last?.sequence ?? 0
        try "\(lastSequence)\n".write(toFile: files.startSequence(run: run), atomically: true, encoding: .utf8)
        store.faultInjector = { (point) throws(SQLiteError) in
            let (commits, statements) = counters.values.withLock { c -> (Int, Int) in
                switch point {
                case .step: c.statements += 1
                case .didCommit: c.commits += 1
                default: break
                }
                return (c.commits, c.statements)
            }
            switch (point, crash) {
            case (.step, .beforeStatement(let n)?) where statements == n: AppendLog.die()
            case (.didCommit, .afterCommit(let n)?) where commits == n: AppendLog.die()
            default: break
            }
        }
        let engine = try StepwiseEngine(store: store, configuration: TortureWorkload.configuration)
        let handlersPath = files.handlers
        await TortureWorkload.register(on: engine) { ctx in
            let n = counters.values.withLock { c -> Int in
                c.handlers += 1
                return c.handlers
            }
            AppendLog.append("\(run) \(ctx.idempotencyKey)", to: handlersPath)
            if case .insideHandler(let target)? = crash, target == n { AppendLog.die() }
        }
        await engine.setListener(EventLog(path: files.events))
        try await TortureWorkload.start(on: engine)
        await engine.resume()
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while ContinuousClock.now < deadline {
            for wait in try await engine.pendingWaits() {
                try? await engine.completeStep(instanceId: wait.instanceId, stepId: wait.stepId, output: ["value": "yes"])
            }
            let active = try await engine.activeInstances()
            let caughtUp = await engine.listenerCaughtUp()
            if active.isEmpty && caughtUp { break }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        await engine.shutdown()
        let c = counters.values.withLock { $0 }
        try "\(c.commits) \(c.statements) \(c.handlers)\n".write(toFile: files.counts, atomically: true, encoding: .utf8)
    }
}
