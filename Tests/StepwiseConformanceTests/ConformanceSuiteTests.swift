import Foundation
@testable import StepwiseConformance
import Testing

/// The package root, found from this file's location.
private let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// Every case of the public suite in `Fixtures/conformance/`, one test argument per case.
private let suiteCases: [ConformanceCase] = {
    let (files, _) = ConformanceLoader.files(in: [packageRoot + "/Fixtures/conformance"])
    return files.flatMap { (try? ConformanceLoader.cases(inFile: $0)) ?? [] }
}()

@Suite("The public conformance suite (Fixtures/conformance)")
struct ConformanceSuiteTests {
    @Test func everyFileIsUsable() {
        let (files, missing) = ConformanceLoader.files(in: [packageRoot + "/Fixtures/conformance"])
        #expect(missing.isEmpty)
        #expect(!files.isEmpty)
        for file in files {
            #expect(throws: Never.self) { _ = try ConformanceLoader.cases(inFile: file) }
        }
    }

    @Test(arguments: suiteCases.map { CaseArgument($0) })
    func conformanceCase(_ argument: CaseArgument) async {
        let failure = await ConformanceRunner.run(argument.testCase)
        #expect(failure == nil, "\(argument.testCase.file) :: \(argument.testCase.name): \(failure ?? "")")
    }
}

/// A case as a test argument, described by its file and name.
struct CaseArgument: CustomTestStringConvertible, Sendable {
    let testCase: ConformanceCase
    init(_ testCase: ConformanceCase) { self.testCase = testCase }
    var testDescription: String {
        "\((testCase.file as NSString).lastPathComponent) :: \(testCase.name)"
    }
}

@Suite("Case files are read as written")
struct ConformanceLoaderTests {
    @Test func aCaseSequenceIsLoadedWithItsBytesAsWritten() throws {
        let sequence = "{ \"name\" : \"b\",\n  \"version\": 1, \"blocks\": [ ] }"
        let extra = "{\"version\":2,\"name\":\"x\",\"blocks\":[]}"
        let text = "{\"cases\": [ {\"name\": \"one\", \"sequences\": [ \(extra) ], \"sequence\": \(sequence), \"expect\": {\"state\": \"completed\"}} ]}"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("case-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try ConformanceLoader.cases(inFile: path)
        guard case .sequence(let testCase)? = loaded.first?.kind else {
            Issue.record("not a sequence case")
            return
        }
        #expect(testCase.sequenceBytes == Array(sequence.utf8))
        #expect(testCase.extraSequenceBytes == [Array(extra.utf8)])
    }

    @Test func aMalformedCaseIsReportedAndTheOthersStillRun() async throws {
        let text = """
            {"cases": [
              {"name": "fine", "expr": "1 + 1", "expect": 2},
              {"name": "expects nothing", "expr": "1"},
              {"name": "no state", "sequence": {"name": "s", "version": 1, "blocks": []}, "expect": {"data": {}}},
              {"expr": "1", "expect": 1}
            ]}
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cases-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (cases, problems) = try ConformanceLoader.casesAndProblems(inFile: path)
        #expect(cases.map(\.name) == ["fine"])
        #expect(problems.count == 3)
        #expect(problems.map(\.message).contains { $0.contains("expects nothing") })
        #expect(problems.map(\.message).contains { $0.contains("expect needs 'state' or 'load_error'") })
        let report = await ConformanceRunner.run(paths: [path])
        #expect(report.passed == 1 && report.unusable.count == 3 && report.exitCode == 2)

        try Data(#"{"cases": []}"#.utf8).write(to: URL(fileURLWithPath: path))
        let empty = await ConformanceRunner.run(paths: [path])
        #expect(empty.exitCode == 2 && empty.unusable.first?.message.contains("\"cases\" is empty") == true)
    }

    /// A case whose actions, handler responses or expectations do not have the format's shape
    /// would check something else than its author meant, or nothing: it is unusable input
    /// (status 2), named with the problem, and the file's other cases still run.
    @Test func aMalformedActionResponseOrExpectationMakesItsCaseUnusable() async throws {
        func sequenceCase(_ name: String, _ extra: String) -> String {
            #"{"name": "\#(name)", "sequence": {"name": "s", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "h"}]}, \#(extra)}"#
        }
        let ok = #""handlers": {"h": [{"output": {}}]}"#
        let text = "{\"cases\": [" + [
            sequenceCase("string list", ok + #", "expect": {"state": "completed", "steps_not_run": "a"}"#),
            sequenceCase("count", ok + #", "expect": {"state": "completed", "calls": {"h": "1"}}"#),
            sequenceCase("unknown expectation", ok + #", "expect": {"state": "completed", "stepz_run": ["a"]}"#),
            sequenceCase("bare on_waiting", ok + #", "actions": [{"on_waiting": "a"}], "expect": {"state": "completed"}"#),
            sequenceCase("at_ms without cancel", ok + #", "actions": [{"at_ms": 0}], "expect": {"state": "completed"}"#),
            sequenceCase("unknown action", ok + #", "actions": [{"frobnicate": "a"}], "expect": {"state": "completed"}"#),
            sequenceCase("misspelt response", #""handlers": {"h": [{"outptu": {}}]}, "expect": {"state": "completed"}"#),
            #"{"name": "truthy string", "expr": "1", "expect_truthy": "no"}"#,
            sequenceCase("numeric id", ok + #", "instance_id": 12345, "expect": {"state": "completed"}"#),
            sequenceCase("extras object", ok + #", "sequences": {"name": "c"}, "expect": {"state": "completed"}"#),
            sequenceCase("no responses", #""handlers": {"h": []}, "expect": {"state": "completed"}"#),
            #"{"name": "context number", "expr": "1", "context": 5, "expect": 1}"#,
            #"{"name": "expr number", "expr": 5, "expect": 5}"#,
            #"{"name": 7, "expr": "1", "expect": 1}"#,
            sequenceCase("fine", ok + #", "expect": {"state": "completed", "calls": {"h": 1}}"#),
        ].joined(separator: ",") + "]}"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cases-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let report = await ConformanceRunner.run(paths: [path])
        #expect(report.passed == 1 && report.failed == 0 && report.exitCode == 2)
        let messages = report.unusable.map(\.message)
        for expected in [
            "case 'string list': expectation 'steps_not_run' must be an array of strings",
            "case 'count': expectation 'calls.h' must be a count",
            "case 'unknown expectation': unknown expectation 'stepz_run'",
            "case 'bare on_waiting': action 1: on_waiting needs complete_step",
            "case 'at_ms without cancel': action 1: at_ms needs cancel: true",
            "case 'unknown action': action 1: unknown action with the keys frobnicate",
            "case 'misspelt response': handler 'h' response 1: unknown response field 'outptu'",
            "case 'truthy string': expect_truthy is true or false, got \"no\"",
            "case 'numeric id': instance_id must be a string, got integer",
            "case 'extras object': sequences must be an array, got object",
            "case 'no responses': handler 'h' has no responses",
            "case 'context number': context must be an object, got integer",
            "case 'expr number': expr must be a string, got integer",
            "case 14: name must be a string, got integer",
        ] {
            #expect(messages.contains { $0.contains(expected) }, "\(expected) in \(messages)")
        }
    }

    /// A case name with a line break still prints as one line.
    @Test func aCaseLineIsOneLine() {
        let outcome = CaseOutcome(file: "f.json", name: "line one\nline two", failure: "a\nb")
        #expect(outcome.line == #"FAIL f.json :: line one\nline two: a; b"#)
    }

    /// A folder whose name ends in `.json` is searched like any folder, not read as a case file.
    @Test func aFolderNamedLikeACaseFileIsSearched() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cases-\(UUID().uuidString)")
        let folder = root.appendingPathComponent("more.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(#"{"name": "inside", "expr": "1 + 1", "expect": 2}"#.utf8).write(to: folder.appendingPathComponent("case.json"))
        let report = await ConformanceRunner.run(paths: [root.path])
        #expect(report.passed == 1 && report.unusable.isEmpty && report.exitCode == 0)
    }
}
