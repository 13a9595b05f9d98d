public import ArgumentParser
import Foundation
import StepwiseTorture

/// `stepwise torture`: kills a mixed workload at every commit boundary and inside handlers,
/// resumes it, and checks the durability invariants.
public struct TortureCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "torture",
        abstract: "Crash-point torture: SIGKILL a mixed workload at every commit boundary, resume, check invariants.",
        discussion: "Exit status: 0 with no violation, 1 when any invariant broke.")

    @Option(help: "Crash points to exercise (fewer only when the workload has fewer).")
    var points = 1000

    @Option(help: "Scratch directory (default: a temporary one).")
    var workdir: String?

    public init() {}

    public func run() async throws {
        let dir = workdir ?? FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-torture-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { if workdir == nil { try? FileManager.default.removeItem(atPath: dir) } }
        let harness = TortureHarness(executable: CommandLine.arguments[0], workDirectory: dir)
        let report = try await harness.run(maxPoints: points) { line in print(line) }
        print(report.summary)
        for violation in report.violations { print("VIOLATION \(violation)") }
        if !report.violations.isEmpty { throw ExitCode(1) }
    }
}

/// `stepwise torture-child`: one run of the torture workload (internal).
public struct TortureChildCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "torture-child", abstract: "Torture-harness child process (internal).", shouldDisplay: false)

    @Option(help: "The run's directory.")
    var dir: String

    @Option(help: "Run label (1 = crashing run, 2 = resumed run).")
    var run = 1

    @Option(help: "after-commit:N, statement:N or handler:N.")
    var crash: String?

    public init() {}

    public func run() async throws {
        var point: CrashPoint?
        if let crash {
            guard let parsed = CrashPoint(crash) else { throw ValidationError("bad --crash '\(crash)'") }
            point = parsed
        }
        try await TortureChild.run(files: TortureFiles(directory: dir), crash: point, run: run)
    }
}
