import Foundation
import StepwiseConformance
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

    @Test func anExpectationOfTheWrongShapeFailsTheCaseInsteadOfCheckingNothing() async throws {
        let text = """
            {"cases": [
              {"name": "string list", "sequence": {"name": "s", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "h"}]},
               "handlers": {"h": [{"output": {}}]}, "expect": {"state": "completed", "steps_not_run": "a"}},
              {"name": "count", "sequence": {"name": "s", "version": 1, "blocks": [{"type": "step", "id": "a", "handler": "h"}]},
               "handlers": {"h": [{"output": {}}]}, "expect": {"state": "completed", "calls": {"h": "1"}}}
            ]}
            """
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cases-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let report = await ConformanceRunner.run(paths: [path])
        #expect(report.failed == 2 && report.exitCode == 1)
        let lines = report.outcomes.map(\.line)
        #expect(lines.contains { $0.contains("expectation 'steps_not_run' must be an array of strings") })
        #expect(lines.contains { $0.contains("expectation 'calls.h' must be a count") })
    }
}
