import ArgumentParser
import Foundation
import Stepwise
@testable import StepwiseCommands
import StepwiseTesting
import Testing

/// `run-report`, `instance-report`, `instances-report`, `dead-letters-report` and
/// `sequences-report`: the `--json` output of the commands that run and inspect instances on a
/// database, produced by those commands in-process on one scratch database that holds a waiting,
/// a completed, a failed and a cancelled instance.
@Suite(.serialized)
struct InstanceReportSchemaTests {
    /// A scripted step that fails once and is retried, a wait with choices, and a for_each whose
    /// steps run once per item (`iteration_path` other than `_`).
    static let approval = """
        {"name": "approval", "version": 1, "blocks": [
          {"type": "step", "id": "prepare", "handler": "flaky", "params": {"n": 1},
           "retry": {"max_attempts": 2, "initial_backoff": 1, "max_backoff": 10}},
          {"type": "step", "id": "decide", "handler": "ask",
           "wait_for_input": {"prompt": "Ship it?", "choices": [{"label": "Yes", "value": "yes"}, {"label": "No", "value": "no"}],
                              "store_as": "decision", "timeout": 3600000}},
          {"type": "for_each", "id": "each", "collection": "data.items", "body": [
            {"type": "step", "id": "finish", "handler": "work", "params": {"item": "{{ data.item }}"}}]}
        ]}
        """

    static let handlers = """
        {"flaky": [{"fail": "flaky", "code": "e_flaky"}, {"echo": true}], "work": [{"echo": true}], "ask": [{"output": {"asked": true}}]}
        """

    /// A step that always fails permanently (the built-in `fail`): a dead letter.
    static let failing = """
        {"name": "failing", "version": 1, "blocks": [
          {"type": "step", "id": "ok", "handler": "noop"},
          {"type": "step", "id": "charge", "handler": "fail", "params": {"message": "card declined", "code": "declined"}}
        ]}
        """

    /// The reports the scenario produced, by name.
    struct Reports {
        var runs: [String: JSONValue] = [:]
        var shows: [String: JSONValue] = [:]
        var instances: [String: JSONValue] = [:]
        var deadLetters: [String: JSONValue] = [:]
        var sequences: JSONValue = .null
    }

    /// Runs the scenario once per test (each test gets its own database).
    static func scenario() async throws -> Reports {
        let folder = try DocumentSchemas.scratchFolder("instances")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let db = folder + "/test.db"
        let approvalFile = try DocumentSchemas.write(approval, to: "approval.json", in: folder)
        let handlersFile = try DocumentSchemas.write(handlers, to: "handlers.json", in: folder)
        let failingFile = try DocumentSchemas.write(failing, to: "failing.json", in: folder)
        var reports = Reports()

        func run(_ arguments: [String]) async throws -> CommandOutput {
            let command = try RunCommand.parse(arguments + ["--json", "--db", db])
            return await command.execute(console: .collecting(timelineOnStandardError: true), input: .scripted([]), canAsk: false)
        }
        func resume(_ arguments: [String]) async throws -> CommandOutput {
            let command = try ResumeCommand.parse(arguments + ["--json", "--db", db])
            return await command.execute(console: .collecting(timelineOnStandardError: true), input: .scripted([]), canAsk: false)
        }

        // Stops at the wait (exit 3), then is answered and completes (exit 0).
        let stopped = try await run([approvalFile, "--handlers", handlersFile, "--input", #"{"items": ["a", "b"]}"#])
        #expect(stopped.exitCode == 3, "\(stopped.standardError)")
        reports.runs["stopped_waiting"] = try DocumentSchemas.parse(stopped.standardOutput)
        let waitingID = try #require(reports.runs["stopped_waiting"]?["instance"]?["id"]?.stringValue)
        reports.shows["waiting"] = try await show(waitingID, db: db)
        let completed = try await resume([waitingID, "--handlers", handlersFile, "--answer", "decide=yes"])
        #expect(completed.exitCode == 0, "\(completed.standardError)")
        reports.runs["completed"] = try DocumentSchemas.parse(completed.standardOutput)
        reports.shows["completed"] = try await show(waitingID, db: db)

        // Fails permanently (exit 1): a dead letter.
        let failed = try await run([failingFile])
        #expect(failed.exitCode == 1, "\(failed.standardError)")
        reports.runs["failed"] = try DocumentSchemas.parse(failed.standardOutput)
        let failedID = try #require(reports.runs["failed"]?["instance"]?["id"]?.stringValue)
        reports.shows["failed"] = try await show(failedID, db: db)

        // Cancelled while waiting.
        let another = try await run([approvalFile, "--handlers", handlersFile, "--input", #"{"items": []}"#])
        let cancelledID = try #require(try DocumentSchemas.parse(another.standardOutput)["instance"]?["id"]?.stringValue)
        let cancel = await (try CancelCommand.parse([cancelledID, "--db", db])).execute()
        #expect(cancel.exitCode == 0, "\(cancel.standardError)")
        reports.shows["cancelled"] = try await show(cancelledID, db: db)

        reports.instances["page"] = try await listing(InstancesCommand.parse(["--limit", "1", "--json", "--db", db]).execute(now: 0))
        reports.instances["all"] = try await listing(InstancesCommand.parse(["--json", "--db", db]).execute(now: 0))
        reports.sequences = try await listing(SequencesCommand.parse(["--json", "--db", db]).execute(now: 0))

        func deadLetters(_ arguments: [String]) async throws -> JSONValue {
            try await listing(DeadLettersCommand.parse(arguments + ["--json", "--db", db]).execute(now: SystemClock().now()))
        }
        reports.deadLetters["listing"] = try await deadLetters([])
        let letterID = try #require(reports.deadLetters["listing"]?["dead_letters"]?[0]?["id"]?.stringValue)
        reports.deadLetters["acknowledged"] = try await deadLetters(["--ack", letterID])
        reports.deadLetters["redriven"] = try await deadLetters(["--redrive", letterID])
        reports.deadLetters["listing after redrive"] = try await deadLetters([])
        reports.deadLetters["purged"] = try await deadLetters(["--purge", "--include-unacknowledged"])
        return reports
    }

    private static func show(_ id: String, db: String) async throws -> JSONValue {
        try await listing(ShowCommand.parse([id, "--json", "--db", db]).execute(now: SystemClock().now()))
    }

    private static func listing(_ output: CommandOutput, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        #expect(output.exitCode == 0, "\(output.standardError)", sourceLocation: sourceLocation)
        return try DocumentSchemas.parse(output.standardOutput, sourceLocation: sourceLocation)
    }

    /// Every report of the scenario matches its schema; the scenario reaches the shapes the
    /// schemas distinguish (each outcome and state, attempts that failed and succeeded, answers).
    @Test func everyReportMatchesItsSchema() async throws {
        let reports = try await Self.scenario()
        #expect(Set(reports.runs.keys) == ["stopped_waiting", "completed", "failed"])
        for (name, report) in reports.runs {
            try DocumentSchemas.expectValid(report, SchemaCatalog.runReport, "run --json (\(name))")
            #expect(report["outcome"] == .string(name))
        }
        for (name, report) in reports.shows {
            try DocumentSchemas.expectValid(report, SchemaCatalog.instanceReport, "show --json (\(name))")
        }
        #expect(reports.shows["cancelled"]?["state"] == "cancelled" && reports.shows["failed"]?["error"]?["code"] == "declined")
        let attempts = reports.shows["completed"]?["attempts"]?.arrayValue ?? []
        #expect(attempts.contains { $0["will_retry"] == true } && attempts.contains { $0["output"] != nil })
        #expect(attempts.contains { $0["iteration_path"] == "1" }, "the second for_each iteration's attempt")
        #expect(reports.shows["completed"]?["answers"]?.arrayValue?.count == 1)
        #expect(reports.shows["waiting"]?["waits"]?.arrayValue?.count == 1)
        for (name, report) in reports.instances {
            try DocumentSchemas.expectValid(report, SchemaCatalog.instancesReport, "instances --json (\(name))")
        }
        #expect(reports.instances["page"]?["has_more"] == true && reports.instances["all"]?["has_more"] == false)
        for (name, report) in reports.deadLetters {
            try DocumentSchemas.expectValid(report, SchemaCatalog.deadLettersReport, "dead-letters --json (\(name))")
        }
        #expect(reports.deadLetters["listing after redrive"]?["dead_letters"]?[0]?["redriven_at"]?.stringValue != nil)
        try DocumentSchemas.expectValid(reports.sequences, SchemaCatalog.sequencesReport, "sequences --json")
        #expect(reports.sequences["sequences"]?.arrayValue?.count == 2)
    }

    /// Renamed, retyped and out-of-range members of real reports are refused.
    @Test func schemasRefuseWrongShapes() async throws {
        let reports = try await Self.scenario()
        let stopped = try #require(reports.runs["stopped_waiting"])
        let completedRun = try #require(reports.runs["completed"])
        try DocumentSchemas.expectRejected(stopped.replacing("/outcome", with: "waiting"), SchemaCatalog.runReport, near: "/outcome")
        try DocumentSchemas.expectRejected(stopped.replacing("/resume_command", with: nil), SchemaCatalog.runReport, near: "")
        try DocumentSchemas.expectRejected(stopped.replacing("/resume_command", with: .null), SchemaCatalog.runReport, near: "/resume_command")
        try DocumentSchemas.expectRejected(completedRun.replacing("/instance/state", with: "failed"), SchemaCatalog.runReport, near: "/instance/state")
        try DocumentSchemas.expectRejected(completedRun.replacing("/instance/version", with: "1"), SchemaCatalog.runReport, near: "/instance/version")

        let show = try #require(reports.shows["completed"])
        let failed = try #require(reports.shows["failed"])
        let waiting = try #require(reports.shows["waiting"])
        let path = SchemaCatalog.instanceReport
        try DocumentSchemas.expectRejected(show.replacing("/state", with: "Completed"), path, near: "/state")
        try DocumentSchemas.expectRejected(show.renaming("/current_step", to: "currentStep"), path, near: "")
        try DocumentSchemas.expectRejected(show.replacing("/finished_at", with: .null), path, near: "/finished_at")
        try DocumentSchemas.expectRejected(show.replacing("/created_at", with: "2026-01-01T00:00:00Z"), path, near: "/created_at")
        try DocumentSchemas.expectRejected(show.replacing("/id", with: "not-a-uuid"), path, near: "/id")
        try DocumentSchemas.expectRejected(show.replacing("/attempts/0/will_retry", with: nil), path, near: "/attempts/0")
        try DocumentSchemas.expectRejected(show.replacing("/attempts/0/attempt", with: 0), path, near: "/attempts/0/attempt")
        try DocumentSchemas.expectRejected(show.replacing("/answers/0/at", with: nil), path, near: "/answers/0")
        try DocumentSchemas.expectRejected(failed.replacing("/error", with: .null), path, near: "/error")
        try DocumentSchemas.expectRejected(failed.replacing("/error/block_type", with: "ab_split"), path, near: "/error/block_type")
        try DocumentSchemas.expectRejected(waiting.replacing("/waits/0/choices/0/value", with: 1), path, near: "/waits/0/choices")
        try DocumentSchemas.expectRejected(waiting.renaming("/waits/0/wait_id", to: "id"), path, near: "/waits/0")

        let page = try #require(reports.instances["page"])
        try DocumentSchemas.expectRejected(page.replacing("/next_cursor", with: .null), SchemaCatalog.instancesReport, near: "/next_cursor")
        try DocumentSchemas.expectRejected(page.replacing("/instances/0/state", with: "done"), SchemaCatalog.instancesReport, near: "/instances/0/state")
        try DocumentSchemas.expectRejected(page.renaming("/instances", to: "items"), SchemaCatalog.instancesReport, near: "")

        let letters = try #require(reports.deadLetters["listing"])
        let redriven = try #require(reports.deadLetters["listing after redrive"])
        let lettersPath = SchemaCatalog.deadLettersReport
        try DocumentSchemas.expectRejected(
            letters.replacing("/dead_letters/0/failed_at", with: 1_767_225_600_000), lettersPath, near: "")
        try DocumentSchemas.expectRejected(letters.renaming("/dead_letters/0/error", to: "message"), lettersPath, near: "")
        try DocumentSchemas.expectRejected(redriven.replacing("/dead_letters/0/acknowledged", with: false), lettersPath, near: "")
        try DocumentSchemas.expectRejected(.object(["purged": "3"]), lettersPath, near: "")
        try DocumentSchemas.expectRejected(.object(["acknowledged": "x", "purged": 1]), lettersPath, near: "")

        let sequences = reports.sequences
        let sequencesPath = SchemaCatalog.sequencesReport
        try DocumentSchemas.expectRejected(sequences.replacing("/sequences/0/origin", with: "remote"), sequencesPath, near: "/sequences/0/origin")
        try DocumentSchemas.expectRejected(sequences.replacing("/sequences/0/sha256", with: "ABC"), sequencesPath, near: "/sequences/0/sha256")
        try DocumentSchemas.expectRejected(sequences.replacing("/sequences/0/latest", with: nil), sequencesPath, near: "/sequences/0")
        try DocumentSchemas.expectRejected(
            sequences.replacing("/sequences/0/retired", with: true).replacing("/sequences/0/latest", with: true), sequencesPath,
            near: "/sequences/0/latest")
    }
}
