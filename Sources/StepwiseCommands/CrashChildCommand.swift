public import ArgumentParser
import Foundation
import Stepwise
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `stepwise crash-child`: a child process for crash tests (hidden).
///
/// Runs a fixed workload on `--db`, logging every handler invocation with its idempotency key to
/// `--log`, and kills itself with SIGKILL at the chosen point: before a step's handler body,
/// during it (after logging), or right after the commit that records the step's output. Run
/// again without `--kill-at` on the same database, it resumes and finishes.
public struct CrashChildCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "crash-child", abstract: "Crash-test child process (internal).", shouldDisplay: false)

    @Option(help: "Database file.")
    var db: String

    @Option(help: "Handler invocation log.")
    var log: String

    @Option(help: "before-handler:STEP, during-handler:STEP or after-commit:STEP.")
    var killAt: String?

    public init() {}

    /// The workload: a linear list, a parallel and a retry, all with the `work` handler.
    static let workload = #"""
        {"name": "crash-workload", "version": 1, "blocks": [
          {"type": "step", "id": "a", "handler": "work", "params": {"n": 1}},
          {"type": "step", "id": "b", "handler": "work", "params": {"n": 2}},
          {"type": "parallel", "id": "p", "branches": [
            [{"type": "step", "id": "c1", "handler": "work"}],
            [{"type": "step", "id": "c2", "handler": "work"}]
          ]},
          {"type": "step", "id": "d", "handler": "work", "params": {"prev": "{{ outputs.b.step }}"}},
          {"type": "step", "id": "e", "handler": "work"}
        ]}
        """#

    public func run() async throws {
        let kill = killAt.flatMap { spec -> (String, String)? in
            let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        let logPath = log
        let engine = try StepwiseEngine(databasePath: db)
        await engine.registerHandler("work") { context in
            if kill?.0 == "before-handler" && kill?.1 == context.stepId { Self.die() }
            Self.append("\(context.stepId) \(context.idempotencyKey)\n", to: logPath)
            if kill?.0 == "during-handler" && kill?.1 == context.stepId { Self.die() }
            return ["step": .string(context.stepId), "attempt": .integer(Int64(context.attempt))]
        }
        if let kill, kill.0 == "after-commit" {
            let step = kill.1
            await engine.setCommitObserver { batch in
                if batch.journal.contains(where: { $0.kind == .stepSucceeded && $0.stepID == step }) { Self.die() }
            }
        }
        _ = try await engine.loadSequence(json: Array(Self.workload.utf8))
        if try await engine.instances(limit: 1).items.isEmpty {
            _ = try await engine.start("crash-workload", dedupKey: "crash-workload")
        }
        await engine.resume()
        while true {
            let live = try await engine.instances(filter: InstanceFilter(states: [.running, .scheduled, .waiting]), limit: 10)
            if live.items.isEmpty { break }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        await engine.shutdown()
        print("finished")
    }

    static func append(_ line: String, to path: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard fd >= 0 else { return }
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
        _ = fsync(fd)
        _ = close(fd)
    }

    static func die() -> Never {
        _ = kill(getpid(), SIGKILL)
        fatalError("SIGKILL did not end the process")
    }
}
