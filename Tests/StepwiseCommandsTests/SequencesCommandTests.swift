import ArgumentParser
import Foundation
import Stepwise
@testable import StepwiseCommands
import Testing

@Suite("stepwise sequences")
struct SequencesCommandTests {
    private func sequences(_ arguments: [String], in workspace: CLIWorkspace) async throws -> CommandOutput {
        try await SequencesCommand.parse(arguments + ["--db", workspace.database]).execute(now: SystemClock().now())
    }

    @Test func listsEachStoredVersionWithTheOneStartChoosesAndWhatItPins() async throws {
        let workspace = try CLIWorkspace()
        // Version 1 waits (it stays unfinished); version 2 is deprecated, so 1 stays "latest".
        let waiting = try workspace.write(TestSequences.approval, to: "approval-v1.json")
        let deprecated = try workspace.write(
            TestSequences.approval.replacingOccurrences(of: #""version": 1,"#, with: #""version": 2, "deprecated": true,"#),
            to: "approval-v2.json")
        let failing = try workspace.write(TestSequences.failing, to: "failing.json")
        let script = try workspace.write(TestSequences.approvalHandlers, to: "handlers.json")
        _ = try await workspace.run([waiting, "--handlers", script])
        _ = try await workspace.run([failing])
        // Running the file starts the version it holds, deprecated or not.
        _ = try await workspace.run([deprecated, "--handlers", script])

        let listed = try await sequences([], in: workspace)
        #expect(listed.exitCode == 0, "\(listed.standardError)")
        let lines = listed.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("NAME") == true)
        let v1 = try #require(lines.first { $0.hasPrefix("approval ") && $0.contains(" 1 ") })
        #expect(v1.contains("latest") && v1.hasSuffix(" 1"))
        let v2 = try #require(lines.first { $0.hasPrefix("approval ") && $0.contains(" 2 ") })
        #expect(v2.contains("deprecated") && !v2.contains("latest") && v2.hasSuffix(" 1"))
        let done = try #require(lines.first { $0.hasPrefix("failing ") })
        #expect(done.contains("latest") && done.hasSuffix(" 0"))

        let json = try JSONParser.parse(try await sequences(["--json", "--name", "approval"], in: workspace).standardOutput)
        let rows = try #require(json["sequences"]?.arrayValue)
        #expect(rows.map { $0["version"] } == [1, 2])
        #expect(rows.map { $0["latest"] } == [true, false])
        #expect(rows.map { $0["deprecated"] } == [false, true])
        #expect(rows.map { $0["unfinished_instances"] } == [1, 1])
        #expect(rows.first?["origin"] == "local")
    }

    @Test func anEmptyOrMissingDatabaseSaysSo() async throws {
        let workspace = try CLIWorkspace()
        let missing = try await sequences([], in: workspace)
        #expect(missing.exitCode == 2)
        _ = try await workspace.run([try workspace.write(TestSequences.failing, to: "failing.json")])
        let none = try await sequences(["--name", "nope"], in: workspace)
        #expect(none.exitCode == 0)
        #expect(none.standardOutput == "no stored versions of 'nope'\n")
    }
}
