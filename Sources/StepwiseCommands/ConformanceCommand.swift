public import ArgumentParser
import StepwiseConformance
import StepwiseJSON

/// `stepwise conformance PATH...`: runs conformance case files (CONFORMANCE.md).
///
/// Prints `PASS`/`FAIL` per case and `N passed, M failed`; exit 0 when nothing failed, 1 when a
/// case failed, 2 for unusable input.
public struct ConformanceCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "conformance",
        abstract: "Run conformance cases against the real engine (SQLite, virtual clock).",
        discussion: """
            Files or folders (searched recursively for *.json). One line per case, then "N passed, M failed". \
            Exit status: 0 nothing failed, 1 a case failed, 2 unusable input (reported; other files still run).
            """
    )

    @Argument(help: "Case files or folders.")
    var paths: [String]

    @Flag(help: "Write a machine-readable report instead of text.")
    var json = false

    @Option(help: "Run only cases whose name or file contains this text.")
    var filter: String?

    public init() {}

    public func run() async throws {
        let output = await Self.execute(paths: paths, json: json, filter: filter, streaming: !json)
        try output.finish()
    }

    static func execute(paths: [String], json: Bool, filter: String?, streaming: Bool = false) async -> CommandOutput {
        let report = await ConformanceRunner.run(paths: paths, filter: filter) { outcome in
            if streaming { CommandOutput(standardOutput: outcome.line + "\n").writeNow() }
        }
        var errors = ""
        for problem in report.unusable { errors += "error: \(problem)\n" }
        if json {
            return CommandOutput(
                standardOutput: JSONWriter.string(report.jsonValue, options: .prettyPrinted) + "\n", standardError: errors,
                exitCode: report.exitCode)
        }
        if streaming && !errors.isEmpty {
            // Before the summary, so that it stays the last line when both streams are merged.
            CommandOutput(standardError: errors).writeNow()
            errors = ""
        }
        var text = streaming ? "" : report.outcomes.map { $0.line + "\n" }.joined()
        text += report.summaryLine + "\n"
        return CommandOutput(standardOutput: text, standardError: errors, exitCode: report.exitCode)
    }
}
