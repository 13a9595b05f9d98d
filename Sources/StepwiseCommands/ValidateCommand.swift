public import ArgumentParser
import StepwiseJSON
import StepwiseSequences

/// `stepwise validate FILE...`: checks sequence documents and lists every problem.
///
/// Exit status: 0 when every file is valid, 1 when any is invalid, 2 when any input is unusable
/// (missing, unreadable, or not JSON at all).
public struct ValidateCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate sequence documents; list every problem with its JSON pointer.",
        discussion: """
            Folders are searched recursively for *.json files. A file holding a JSON array of documents \
            (a bundle, as orch8's sequences.json) is checked element by element. Exit status: 0 all valid, \
            1 any invalid, 2 unusable input (missing, unreadable or not JSON).
            """
    )

    @Argument(help: "Sequence files or folders.")
    var paths: [String]

    @Flag(help: "Write a JSON report instead of text.")
    var json = false

    public init() {}

    public func run() async throws {
        let output = Self.execute(paths: paths, json: json, style: .standardOutput)
        try output.finish()
    }

    /// Validates `paths` and renders the report.
    static func execute(paths: [String], json: Bool, style: TerminalStyle = .plain) -> CommandOutput {
        let (files, missing) = InputFiles.expand(paths)
        var exitCode: Int32 = 0
        var text = ""
        var errors = ""
        var reports: [JSONValue] = []
        for (path, reason) in missing {
            exitCode = 2
            errors += "error: \(path): \(reason)\n"
            reports.append(["path": .string(path), "status": "unusable", "error": .string(reason)])
        }
        var validCount = 0
        var invalidCount = 0
        for path in files {
            let bytes: [UInt8]
            do {
                bytes = try InputFiles.read(path)
            } catch {
                exitCode = 2
                errors += "error: \(error)\n"
                reports.append(["path": .string(path), "status": "unusable", "error": .string(error.description)])
                continue
            }
            // A bundle is checked element by element, each reported on its own.
            for document in FileDocument.load(bytes, path: path) {
                let result = document.result
                let unusable = document.isUnusable
                if result.isValid {
                    validCount += 1
                } else {
                    invalidCount += 1
                    exitCode = max(exitCode, unusable ? 2 : 1)
                }
                if json {
                    var report: JSONObject = [
                        "path": .string(path),
                        "status": .string(result.isValid ? "valid" : (unusable ? "unusable" : "invalid")),
                        "problems": .array(result.problems.map(\.jsonValue)),
                        "warnings": .array(result.warnings.map(\.jsonValue)),
                    ]
                    if let index = document.index { report["index"] = .integer(Int64(index)) }
                    if let s = result.sequence {
                        report["name"] = .string(s.name)
                        report["version"] = .integer(Int64(s.version))
                        report["blocks"] = .integer(Int64(s.blockCount))
                        report["handlers"] = .array(s.handlerNames.map(JSONValue.string))
                    }
                    reports.append(.object(report))
                    continue
                }
                let label = document.label
                if let s = result.sequence {
                    text += "\(label): \(style.green("valid")) (\(s.name) v\(s.version), \(s.blockCount) blocks, "
                        + "handlers: \(s.handlerNames.joined(separator: ", ")))\n"
                } else {
                    let n = result.problems.count
                    text += "\(label): \(style.red(unusable ? "unusable" : "invalid")) (\(n) problem\(n == 1 ? "" : "s"))\n"
                    for p in result.problems { text += "  \(p)\n" }
                }
                for w in result.warnings { text += "  \(style.yellow("warning")) \(w)\n" }
            }
        }
        if json {
            let summary: JSONValue = [
                "files": .array(reports), "valid": .integer(Int64(validCount)),
                "invalid": .integer(Int64(invalidCount)),
            ]
            return CommandOutput(
                standardOutput: JSONWriter.string(summary, options: .prettyPrinted) + "\n", standardError: errors,
                exitCode: exitCode)
        }
        if files.count > 1 || validCount + invalidCount > 1 { text += "\(validCount) valid, \(invalidCount) invalid\n" }
        return CommandOutput(standardOutput: text, standardError: errors, exitCode: exitCode)
    }
}
