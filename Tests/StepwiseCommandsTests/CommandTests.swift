import Foundation
@testable import StepwiseCommands
import StepwiseJSON
import Testing

/// The package root, found from this file's location.
private func packageRoot(file: String = #filePath) -> String {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

/// Writes `text` to a fresh temporary file and returns its path.
private func temporaryFile(_ text: String, name: String = "doc.json") throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
}

@Suite("stepwise validate")
struct ValidateCommandTests {
    @Test func bundledSequencesAreValid() {
        let output = ValidateCommand.execute(paths: [packageRoot() + "/Fixtures/sequences"], json: false)
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("onboarding-flow.json: valid (onboarding-flow v1"))
    }

    /// orch8 ships its workflows as one JSON array (`sequences.json`): each element is checked
    /// and reported on its own, with pointers into the array.
    @Test func aBundleIsCheckedElementByElement() throws {
        let names = ["onboarding-flow", "payment-verification", "feature-access"]
        let documents = try names.map { try String(contentsOfFile: packageRoot() + "/Fixtures/sequences/\($0).json", encoding: .utf8) }
        let bundle = try temporaryFile("[" + documents.joined(separator: ",") + #", {"name": "broken", "version": 1, "blocks": []}]"#)
        let output = ValidateCommand.execute(paths: [bundle], json: false)
        #expect(output.exitCode == 1)
        #expect(output.standardOutput.contains("doc.json [0]: valid (onboarding-flow v1"), "\(output.standardOutput)")
        #expect(output.standardOutput.contains("doc.json [2]: valid (feature-access v1"))
        #expect(output.standardOutput.contains("doc.json [3]: invalid (1 problem)\n  /3/blocks: empty_blocks"))
        #expect(output.standardOutput.hasSuffix("3 valid, 1 invalid\n"))
        let described = DescribeCommand.execute(paths: [bundle])
        #expect(described.exitCode == 1)
        #expect(described.standardOutput.contains("payment-verification v1 (\(bundle) [1]:"))
        #expect(described.standardError.contains("\(bundle) [3] is invalid"))
        // An empty array is not a bundle of nothing: it is a document of the wrong type.
        let empty = ValidateCommand.execute(paths: [try temporaryFile("[]")], json: false)
        #expect(empty.exitCode == 1 && empty.standardOutput.contains("wrong_type"))
    }

    @Test func invalidFileListsEveryProblemAndExitsOne() throws {
        let path = try temporaryFile(#"{"name": "x", "version": 1, "blocks": [{"type": "step", "id": "a"}, {"type": "loop", "id": "l", "condition": "", "body": []}]}"#)
        let output = ValidateCommand.execute(paths: [path], json: false)
        #expect(output.exitCode == 1)
        #expect(output.standardOutput.contains("invalid (3 problems)"))
        #expect(output.standardOutput.contains("  /blocks/0/handler: missing_field: missing field 'handler'"))
        #expect(output.standardOutput.contains("  /blocks/1/condition: invalid_loop: loop condition is blank"))
        #expect(output.standardOutput.contains("  /blocks/1/body: invalid_loop: loop body is empty"))
    }

    @Test func notJSONIsUnusableAndExitsTwo() throws {
        let path = try temporaryFile("{ nope")
        let output = ValidateCommand.execute(paths: [path], json: false)
        #expect(output.exitCode == 2)
        #expect(output.standardOutput.contains("unusable"))
        #expect(output.standardOutput.contains("invalid_json"))
    }

    @Test func missingFileExitsTwoAndOthersStillRun() {
        let output = ValidateCommand.execute(
            paths: ["/nonexistent/x.json", packageRoot() + "/Fixtures/sequences/onboarding-flow.json"], json: false)
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("/nonexistent/x.json: no such file or folder"))
        #expect(output.standardOutput.contains("valid"))
    }

    @Test func jsonReportHasStatusProblemsAndWarnings() throws {
        let path = try temporaryFile(#"{"name": "x", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": ""}], "colour": 1}"#)
        let output = ValidateCommand.execute(paths: [path], json: true)
        #expect(output.exitCode == 1)
        let report = try JSONParser.parse(output.standardOutput)
        let file = report["files"]?[0]
        #expect(file?["status"] == "invalid")
        #expect(file?["problems"]?[0] == ["pointer": "/blocks/0/handler", "code": "empty_handler", "message": "handler is blank"])
        #expect(file?["warnings"]?[0]?["code"] == "unknown_field")
        #expect(report["invalid"] == 1)
    }
}

@Suite("stepwise eval")
struct EvalCommandTests {
    @Test func printsTheValueAsJSON() {
        let output = EvalCommand.execute(expression: "context.data.terms_decision == 'declined'", data: #"{"terms_decision": "declined"}"#)
        #expect(output.exitCode == 0)
        #expect(output.standardOutput == "true\n")
    }

    /// `now()`, `uuid()` and `random()` answer as an engine would: the time given (the real one
    /// from the command line) and the seeded generator.
    @Test func nowAndRandomComeFromTheCommandsClockAndSeed() {
        let output = EvalCommand.execute(expression: "now()", now: 1_764_072_000_000, seed: 7)
        #expect(output.standardOutput == "\"2025-11-25T12:00:00.000Z\"\n")
        let first = EvalCommand.execute(expression: "uuid()", seed: 1).standardOutput
        #expect(first != EvalCommand.execute(expression: "uuid()", seed: 2).standardOutput)
    }

    /// A data file that is not UTF-8 is refused (as every other input file is), not altered.
    @Test func aDataFileThatIsNotUTF8IsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latin1-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0x63, 0x61, 0x66, 0xE9, 0x22, 0x7D]).write(to: URL(fileURLWithPath: path))
        let output = EvalCommand.execute(expression: "data.a", dataFile: path)
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("UTF-8"), "\(output.standardError)")
    }

    /// Input files past 64 MiB are refused by their size, before being read into memory.
    @Test func aHugeInputFileIsRefusedUnread() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("huge-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(InputFiles.maxBytes + 1))  // sparse: no disk used
        try handle.close()
        let output = EvalCommand.execute(expression: "1", dataFile: path)
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("more than the 64 MiB an input may be"), "\(output.standardError)")
    }

    @Test func compileErrorShowsThePosition() {
        let output = EvalCommand.execute(expression: "a ==")
        #expect(output.exitCode == 1)
        #expect(output.standardError.hasPrefix("error: expression error at position 4"))
        #expect(output.standardError.contains("  a ==\n      ^\n"))
    }

    @Test func badDataIsUnusable() {
        let output = EvalCommand.execute(expression: "1", data: "[1")
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("--data is not valid JSON"))
    }

    @Test func dataMustBeAnObject() {
        let output = EvalCommand.execute(expression: "1", data: "[1]")
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("--data must be a JSON object, got array"))
    }

    @Test func dataFileAndTruthiness() throws {
        let path = try temporaryFile(#"{"items": [1, 2, 3]}"#)
        let output = EvalCommand.execute(expression: "len(items) > 2", dataFile: path, truthy: true)
        #expect(output.standardOutput == "true\ntruthy: true\n")
    }

    @Test func runtimeErrorExitsOne() {
        let output = EvalCommand.execute(expression: "clamp(1, 5, 1)")
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains("clamp: lo 5 is greater than hi 1"))
    }
}

@Suite("stepwise describe")
struct DescribeCommandTests {
    @Test func drawsTheOnboardingTree() {
        let output = DescribeCommand.execute(paths: [packageRoot() + "/Fixtures/sequences/onboarding-flow.json"])
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("└─ router terms_gate"))
        #expect(output.standardOutput.contains("├─ when context.data.terms_decision == 'declined'"))
        #expect(output.standardOutput.contains("step show_terms → show_terms, waits for input [accepted | declined] → data.terms_decision"))
    }
}

@Suite("stepwise help")
struct HelpCommandTests {
    @Test func aTypoInHelpIsNamedNotAnsweredWithTheRootHelp() {
        #expect(StepwiseCLI.unknownSubcommand("bogus") == "bogus")
        #expect(StepwiseCLI.unknownSubcommand("run") == nil)
        #expect(StepwiseCLI.unknownSubcommand("dead-letters") == nil)
        #expect(StepwiseCLI.unknownSubcommand("--help") == nil)
    }
}
