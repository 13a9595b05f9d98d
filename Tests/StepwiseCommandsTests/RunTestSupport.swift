import ArgumentParser
import Foundation
import Stepwise
@testable import StepwiseCommands
import Testing

/// A scratch folder for one test: sequence files, handler scripts and the database.
struct CLIWorkspace {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// The database every command of the test uses.
    var database: String { directory + "/test.db" }

    /// Writes `text` to `name` in the folder and returns its path.
    func write(_ text: String, to name: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The package root, found from this file's location.
    static func packageRoot(file: String = #filePath) -> String {
        URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Runs `stepwise run ARGS --db <database>` in-process with a collecting console.
    func run(
        _ arguments: [String], typed lines: [String]? = nil, setup: HandlerSetup = HandlerSetup()
    ) async throws -> CommandOutput {
        let command = try RunCommand.parse(arguments + ["--db", database])
        return await command.execute(
            console: .collecting(timelineOnStandardError: command.json), input: .scripted(lines ?? []),
            canAsk: lines != nil, setup: setup)
    }

    /// Runs `stepwise resume ARGS --db <database>` in-process.
    func resume(
        _ arguments: [String], typed lines: [String]? = nil, setup: HandlerSetup = HandlerSetup()
    ) async throws -> CommandOutput {
        let command = try ResumeCommand.parse(arguments + ["--db", database])
        return await command.execute(
            console: .collecting(timelineOnStandardError: command.json), input: .scripted(lines ?? []),
            canAsk: lines != nil, setup: setup)
    }

    /// Runs `stepwise show ID --db <database>` in-process.
    func show(_ id: String, json: Bool = false) async throws -> CommandOutput {
        try await ShowCommand.parse([id, "--db", database] + (json ? ["--json"] : [])).execute(now: SystemClock().now())
    }

    /// The id in a line `… instance <uuid> …` of `text`.
    static func instanceID(in text: String) -> String? {
        guard let range = text.range(of: "instance ") else { return nil }
        let id = text[range.upperBound...].prefix(36)
        return InstanceID(rawValue: String(id))?.rawValue
    }
}

/// Small sequences the tests run.
enum TestSequences {
    /// work → a wait with two choices → work.
    static let approval = """
        {"name": "approval", "version": 1, "blocks": [
          {"type": "step", "id": "prepare", "handler": "work", "params": {"n": 1}},
          {"type": "step", "id": "decide", "handler": "ask",
           "wait_for_input": {"prompt": "Ship it?", "choices": [{"label": "Yes", "value": "yes"}, {"label": "No", "value": "no"}],
                              "store_as": "decision"}},
          {"type": "step", "id": "finish", "handler": "work", "params": {"n": 2}}
        ]}
        """

    /// Scripted responses for ``approval``.
    static let approvalHandlers = """
        {"work": [{"echo": true}], "ask": [{"output": {"asked": true}}]}
        """

    /// A step that always fails permanently (the built-in `fail`).
    static let failing = """
        {"name": "failing", "version": 1, "blocks": [
          {"type": "step", "id": "ok", "handler": "noop"},
          {"type": "step", "id": "charge", "handler": "fail", "params": {"message": "card declined", "code": "declined"}}
        ]}
        """
}
