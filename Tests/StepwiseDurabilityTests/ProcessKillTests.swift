import Foundation
import Stepwise
import StepwiseTesting
import StepwiseTorture
import Testing

/// The path of the `stepwise` executable built next to the test bundle.
func stepwiseExecutablePath() throws -> String { try stepwiseExecutable().path }

/// The `stepwise` executable built next to the test bundle.
private func stepwiseExecutable() throws -> URL { try StepwiseExecutable.url() }

/// Runs the crash child to its end.
private func runChild(_ arguments: [String]) async throws -> ChildProcess.Termination {
    await (try ChildProcess(executable: stepwiseExecutable().path, arguments: ["crash-child"] + arguments)).termination()
}

/// Handler invocations logged by the child: (step, idempotency key).
private func invocations(_ path: String) -> [(step: String, key: String)] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map { line in
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        return (parts[0], parts.count > 1 ? parts[1] : "")
    }
}

@Suite("SIGKILL during a run, then reopen: nothing lost, nothing completed re-run")
struct ProcessKillTests {
    static let steps = ["a", "b", "c1", "c2", "d", "e"]

    @Test(arguments: [
        "before-handler:b", "during-handler:b", "after-commit:b", "during-handler:c1", "after-commit:c2",
        "before-handler:e", "after-commit:e",
    ])
    func killAndResume(killAt: String) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("run.db").path
        let log = dir.appendingPathComponent("handlers.log").path

        let killed = try await runChild(["--db", db, "--log", log, "--kill-at", killAt])
        #expect(killed == .signalled(SIGKILL), "the child must die by SIGKILL")
        let beforeResume = invocations(log)

        let resumed = try await runChild(["--db", db, "--log", log])
        #expect(resumed == .exited(0))
        let all = invocations(log)

        // Every step ran, each re-run carried the same idempotency key as its first call.
        var keys: [String: Set<String>] = [:]
        for call in all { keys[call.step, default: []].insert(call.key) }
        for step in Self.steps {
            #expect(keys[step]?.count == 1, "step \(step) ran with keys \(keys[step] ?? [])")
        }
        // No step whose output was committed before the kill ran again.
        let engine = try StepwiseEngine(databasePath: db)
        let page = try await engine.instances()
        #expect(page.items.count == 1)
        let id = try #require(page.items.first?.instanceId)
        let snapshot = try await engine.instance(id)
        #expect(snapshot.state == .completed)
        for step in Self.steps {
            #expect(snapshot.outputs[step]?["step"] == .string(step), "output of \(step) lost")
        }
        let history = try await engine.history(of: id)
        let succeeded = history.filter { $0.kind == .stepSucceeded }.compactMap(\.stepID)
        #expect(succeeded.sorted() == Self.steps.sorted(), "each step's output is recorded exactly once")
        let (mode, step) = (String(killAt.split(separator: ":")[0]), String(killAt.split(separator: ":")[1]))
        let callsOfStep = all.filter { $0.step == step }.count
        switch mode {
        case "before-handler":
            #expect(callsOfStep == 1, "the killed attempt never reached the log; it ran once after resume")
        case "during-handler":
            #expect(callsOfStep == 2, "the killed attempt re-ran once with the same key")
        default:
            #expect(callsOfStep == 1, "an attempt whose output was committed never re-runs")
            #expect(beforeResume.contains { $0.step == step })
        }
        await engine.shutdown()
    }
}
