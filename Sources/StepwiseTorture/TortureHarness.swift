import Foundation
import Stepwise

/// The crash-point harness: a crash-free reference run, then one run per crash point killed
/// there (SIGKILL) and a second run that resumes to the end, each checked against invariants.
public struct TortureHarness: Sendable {
    /// One violated invariant.
    public struct Violation: Sendable, CustomStringConvertible {
        /// The crash point.
        public let point: String
        /// What broke.
        public let message: String
        public var description: String { "\(point): \(message)" }
    }

    /// The harness's report.
    public struct Report: Sendable {
        /// Commits, statements and handler calls of the reference run.
        public var referenceCounts: (commits: Int, statements: Int, handlers: Int) = (0, 0, 0)
        /// Crash points where the child was killed as planned.
        public var exercised: [String] = []
        /// Points the child never reached (the run finished first).
        public var notReached: [String] = []
        /// Invariant violations (must be empty).
        public var violations: [Violation] = []

        /// A short text summary.
        public var summary: String {
            """
            reference run: \(referenceCounts.commits) commits, \(referenceCounts.statements) statements, \(referenceCounts.handlers) handler calls
            crash points exercised: \(exercised.count) (not reached: \(notReached.count))
            invariant violations: \(violations.count)
            """
        }
    }

    /// The `stepwise` executable that runs children (`stepwise torture-child …`).
    public let executable: String
    /// A scratch directory (a folder per point is created and removed below it).
    public let workDirectory: String

    /// Creates a harness.
    public init(executable: String, workDirectory: String) {
        self.executable = executable
        self.workDirectory = workDirectory
    }

    /// Runs the reference, then crash points (commit boundaries, handler invocations, statements
    /// sampled across the run) until `maxPoints` were exercised or none is left.
    public func run(maxPoints: Int, progress: @Sendable (String) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        let referenceDir = workDirectory + "/reference"
        try? FileManager.default.removeItem(atPath: referenceDir)
        try FileManager.default.createDirectory(atPath: referenceDir, withIntermediateDirectories: true)
        let reference = TortureFiles(directory: referenceDir)
        guard try await runChild(files: reference, crash: nil, run: 1) == .finished else {
            throw StepwiseError(.storage, "the crash-free reference run did not finish")
        }
        let counts = (try? String(contentsOfFile: reference.counts, encoding: .utf8))?
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) } ?? []
        guard counts.count == 3 else { throw StepwiseError(.storage, "the reference run wrote no counts") }
        report.referenceCounts = (counts[0], counts[1], counts[2])
        let expected = try await finalStates(reference)

        // Every commit boundary and handler call, plus statements inside transactions (every
        // fourth); an even sample of them when the budget is smaller.
        var points: [CrashPoint] = (1...max(1, counts[0])).map { .afterCommit($0) }
            + (1...max(1, counts[2])).map { .insideHandler($0) }
            + Swift.stride(from: 1, through: counts[1], by: 4).map { .beforeStatement($0) }
        if points.count > maxPoints {
            // An even sample first; the other points follow, because a point planned from the
            // reference run may not be reached in another (group commit varies the number of
            // commits), and the run stops once `maxPoints` were exercised.
            let step = Double(points.count) / Double(maxPoints)
            let sampled = (0..<maxPoints).map { Int(Double($0) * step) }
            let chosen = Set(sampled)
            points = sampled.map { points[$0] } + points.indices.filter { !chosen.contains($0) }.map { points[$0] }
        }
        for point in points where report.exercised.count < maxPoints {
            let dir = workDirectory + "/point"
            try? FileManager.default.removeItem(atPath: dir)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let files = TortureFiles(directory: dir)
            let first = try await runChild(files: files, crash: point, run: 1)
            if first == .finished {
                report.notReached.append(point.description)
                continue
            }
            guard first == .killed else {
                report.violations.append(Violation(point: point.description, message: "the crashing run failed instead of dying"))
                continue
            }
            let second = try await runChild(files: files, crash: nil, run: 2)
            guard second == .finished else {
                report.violations.append(Violation(point: point.description, message: "the resumed run did not finish (\(second))"))
                continue
            }
            report.exercised.append(point.description)
            for message in try await check(files, expected: expected) {
                report.violations.append(Violation(point: point.description, message: message))
            }
            progress("\(point): ok")
        }
        try? FileManager.default.removeItem(atPath: workDirectory + "/point")
        return report
    }

    enum ChildOutcome: Equatable {
        case finished
        case killed
        case failed(Int32)
    }

    func runChild(files: TortureFiles, crash: CrashPoint?, run: Int) async throws -> ChildOutcome {
        let child = try ChildProcess(
            executable: executable,
            arguments: ["torture-child", "--dir", files.directory, "--run", String(run)]
                + (crash.map { ["--crash", $0.description] } ?? []))
        switch await child.termination() {
        case .signalled(SIGKILL): return .killed
        case .exited(0): return .finished
        case .exited(let status): return .failed(status)
        case .signalled(let signal): return .failed(128 + signal)
        }
    }

    /// Final state, outputs and data per dedup key (children by their parent's key and step).
    struct FinalState: Equatable {
        let state: InstanceState
        let outputs: JSONObject
        let data: JSONObject
    }

    func finalStates(_ files: TortureFiles) async throws -> [String: FinalState] {
        let engine = try StepwiseEngine(databasePath: files.database, configuration: TortureWorkload.configuration)
        defer { Task { await engine.shutdown() } }
        var result: [String: FinalState] = [:]
        for summary in try await engine.instances(limit: 500).items {
            let snapshot = try await engine.instance(summary.instanceId)
            var key = snapshot.dedupKey ?? ""
            if let parent = snapshot.parentInstanceId {
                key = "child-of-" + ((try? await engine.instance(parent).dedupKey) ?? "?")
            }
            result[key] = FinalState(state: snapshot.state, outputs: snapshot.outputs, data: snapshot.data)
        }
        await engine.shutdown()
        return result
    }

    /// The invariants of one crash point.
    func check(_ files: TortureFiles, expected: [String: FinalState]) async throws -> [String] {
        var problems: [String] = []
        // 1. Every instance ends as in the crash-free run, with the same outputs and data.
        let actual = try await finalStates(files)
        if Set(actual.keys) != Set(expected.keys) {
            problems.append("instances \(actual.keys.sorted()) differ from the reference \(expected.keys.sorted())")
        }
        for (key, want) in expected {
            guard let got = actual[key] else { continue }
            if got.state != want.state { problems.append("\(key) ended \(got.state), expected \(want.state)") }
            if got.outputs != want.outputs { problems.append("\(key) outputs differ: \(JSONWriter.string(.object(got.outputs)))") }
            if got.data != want.data { problems.append("\(key) data differ") }
        }
        // 2. No attempt whose outcome was committed before the crash ran again.
        let store = try SQLiteExecutionStore(path: files.database)
        let journal = try store.journal(after: 0, limit: 1_000_000)
        let secondStart = Int64((try? String(contentsOfFile: files.startSequence(run: 2), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        let outcomes = journal.filter { $0.kind == .stepSucceeded || $0.kind == .stepFailed }
        let committedInFirst = Set(outcomes.filter { $0.sequence <= secondStart }.compactMap { $0.payload["idempotency_key"]?.stringValue })
        let invocations = AppendLog.lines(files.handlers).map { $0.split(separator: " ", maxSplits: 1).map(String.init) }
        let secondRun = invocations.filter { $0.first == "2" }.compactMap { $0.last }
        for key in secondRun where committedInFirst.contains(key) {
            problems.append("attempt \(key) ran again although its outcome was committed")
        }
        // 3. An attempt interrupted by the crash re-runs with the same idempotency key.
        let firstRun = invocations.filter { $0.first == "1" }.compactMap { $0.last }
        for key in Set(firstRun) where !committedInFirst.contains(key) {
            let prefix = key.split(separator: ":").dropLast().joined(separator: ":")
            if let rerun = secondRun.first(where: { $0.split(separator: ":").dropLast().joined(separator: ":") == prefix }),
                rerun != key
            {
                problems.append("interrupted attempt \(key) re-ran as \(rerun)")
            }
        }
        // 4. Each attempt's outcome is recorded once.
        var seen: [String: Int] = [:]
        for entry in outcomes { if let key = entry.payload["idempotency_key"]?.stringValue { seen[key, default: 0] += 1 } }
        for (key, count) in seen where count > 1 { problems.append("the outcome of \(key) was committed \(count) times") }
        // 5. The outbox has a status row for every instance; 6. listener events at least once.
        let statusKeys = Set(try store.outboxRows(.status, limit: 10_000).map(\.key))
        let instanceIDs = try store.instances(matching: InstanceFilter(), limit: 500, after: nil).map(\.id.rawValue)
        for id in instanceIDs where !statusKeys.contains(id) { problems.append("the outbox lost the status of \(id)") }
        let deliverable: Set<JournalEntry.Kind> = [
            .instanceCompleted, .instanceFailed, .instanceCancelled, .stepPending, .stepStarted, .stepCompleted,
            .inputReceived, .stepFailed,
        ]
        let expectedEvents = journal.filter { deliverable.contains($0.kind) }.count
        let delivered = AppendLog.lines(files.events).count
        if delivered < expectedEvents { problems.append("listener got \(delivered) events, fewer than \(expectedEvents)") }
        if delivered > expectedEvents + 1 {
            problems.append("listener got \(delivered) events for \(expectedEvents): more than the one in flight repeated")
        }
        return problems
    }
}
