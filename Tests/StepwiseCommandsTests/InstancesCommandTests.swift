import ArgumentParser
import Foundation
import Stepwise
import StepwiseSQLite
@testable import StepwiseCommands
import Testing

@Suite("stepwise instances, show, complete, cancel")
struct InstancesCommandTests {
    /// A database with one waiting `approval` instance; returns its id.
    private func waitingInstance(in workspace: CLIWorkspace) async throws -> String {
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let output = try await workspace.run([file, "--input", #"{"user": "ada"}"#])
        return try #require(CLIWorkspace.instanceID(in: output.standardOutput))
    }

    @Test func instancesListsNewestFirstWithFilters() async throws {
        let workspace = try CLIWorkspace()
        let waiting = try await waitingInstance(in: workspace)
        let failingFile = try workspace.write(TestSequences.failing, to: "failing.json")
        let failed = try #require(CLIWorkspace.instanceID(in: try await workspace.run([failingFile]).standardOutput))

        let all = try await InstancesCommand.parse(["--db", workspace.database]).execute(now: SystemClock().now())
        #expect(all.exitCode == 0)
        let lines = all.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasPrefix("ID ") == true)
        #expect(lines[1].hasPrefix(failed) && lines[1].contains("failed") && lines[1].contains("failing v1"))
        #expect(lines[2].hasPrefix(waiting) && lines[2].contains("waiting") && lines[2].contains("decide"))

        let filtered = try await InstancesCommand.parse(["--state", "waiting,paused", "--db", workspace.database]).execute(now: 0)
        #expect(filtered.standardOutput.contains(waiting) && !filtered.standardOutput.contains(failed))

        let json = try await InstancesCommand.parse(["--json", "--sequence", "failing", "--db", workspace.database]).execute(now: 0)
        let report = try JSONParser.parse(json.standardOutput)
        #expect(report["instances"]?.arrayValue?.count == 1)
        #expect(report["instances"]?[0]?["id"] == .string(failed))
        #expect(report["instances"]?[0]?["error"] == "step 'charge' failed: card declined")
        #expect(report["has_more"] == false)

        #expect(throws: (any Error).self) { try InstancesCommand.parse(["--state", "sleeping"]) }
    }

    /// A damaged history still shows the instance (state, waits, data), with the storage error
    /// in place of the timeline and status 2.
    @Test func showWithADamagedHistoryShowsTheRestAndTheError() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(
            #"{"name": "w", "version": 1, "blocks": [{"type": "step", "id": "ask", "handler": "noop", "wait_for_input": {"prompt": "ok?"}}]}"#,
            to: "w.json")
        let id = try #require(CLIWorkspace.instanceID(in: try await workspace.run([file]).standardOutput))
        try SQLiteConnection(path: workspace.database).execute("UPDATE journal_chunks SET entries = x'ff0102'")
        let output = try await workspace.show(id)
        #expect(output.exitCode == 2)
        #expect(output.standardOutput.contains("waits for input") && output.standardOutput.contains("(not shown: the history cannot be read)"))
        #expect(output.standardError.contains("error: the timeline is not shown: ") && output.standardError.contains("is damaged"))
    }

    @Test func showTellsConcurrentWaitsOfOneStepApart() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(
            #"{"name": "fe", "version": 1, "blocks": [{"type": "for_each", "id": "each", "collection": "items", "max_concurrency": 2, "body": [{"type": "step", "id": "ask", "handler": "noop", "wait_for_input": {"prompt": "ok?"}}]}]}"#,
            to: "fe.json")
        let id = try #require(CLIWorkspace.instanceID(in: try await workspace.run([file, "--input", #"{"items": [1, 2]}"#]).standardOutput))
        let text = try await workspace.show(id).standardOutput
        #expect(text.contains("--wait-id \(id):2:1") && text.contains("--wait-id \(id):3:1"), "\(text)")
        let answered = try await CompleteCommand.parse([id, "ask", "yes", "--wait-id", "\(id):3:1", "--db", workspace.database]).execute()
        #expect(answered.exitCode == 0, "\(answered.standardError)")
        #expect(!(try await workspace.show(id).standardOutput.contains("--wait-id")), "one wait left: no ids needed")
    }

    @Test func listingsPageWithTheCursorTheyPrint() async throws {
        let workspace = try CLIWorkspace()
        var ids: Set<String> = []
        for _ in 0..<3 { ids.insert(try await waitingInstance(in: workspace)) }
        let first = try await InstancesCommand.parse(["--limit", "2", "--json", "--db", workspace.database]).execute(now: SystemClock().now())
        let report = try JSONParser.parse(first.standardOutput)
        let cursor = try #require(report["next_cursor"]?.stringValue)
        let second = try await InstancesCommand.parse(["--limit", "2", "--json", "--after", cursor, "--db", workspace.database])
            .execute(now: SystemClock().now())
        let rest = try JSONParser.parse(second.standardOutput)
        let seen = (report["instances"]?.arrayValue ?? []) + (rest["instances"]?.arrayValue ?? [])
        #expect(Set(seen.compactMap { $0["id"]?.stringValue ?? $0["instance_id"]?.stringValue }) == ids)
        #expect(rest["next_cursor"] == .null)
        let table = try await InstancesCommand.parse(["--limit", "2", "--db", workspace.database]).execute(now: SystemClock().now())
        #expect(table.standardOutput.contains("… more: stepwise instances --limit 2 --after "))
        let bad = try await InstancesCommand.parse(["--after", "zz", "--db", workspace.database]).execute(now: SystemClock().now())
        #expect(bad.exitCode == 2)
    }

    @Test func showOfAWaitingInstanceExplainsWhyItIsNotRunning() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        let output = try await workspace.show(String(id.prefix(6)))
        #expect(output.exitCode == 0, "\(output.standardError)")
        let text = output.standardOutput
        #expect(text.hasPrefix("approval v1 · instance \(id)"))
        #expect(text.contains("state         waiting"))
        #expect(text.contains("why isn't it running?\n  - step 'decide' waits for input\n"))
        #expect(text.contains("open waits\n  decide  Ship it?\n    1) Yes → yes\n    2) No → no\n"))
        #expect(text.contains("the answer is stored in context.data.decision"))
        #expect(text.contains("answer: stepwise complete \(id) decide yes --db \(workspace.database)"))
        #expect(text.contains("✓ prepare                 "))
        #expect(text.contains("attempt 1"))
        #expect(text.contains(#""user":"ada""#))
    }

    @Test func showJSONHasAttemptsWaitsAndReasons() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        let output = try await workspace.show(id, json: true)
        let report = try JSONParser.parse(output.standardOutput)
        #expect(report["id"] == .string(id))
        #expect(report["state"] == "waiting")
        #expect(report["waiting_reasons"] == ["step 'decide' waits for input"])
        #expect(report["waits"]?[0]?["step_id"] == "decide")
        #expect(report["waits"]?[0]?["choices"]?[1] == ["label": "No", "value": "no"])
        #expect(report["attempts"]?[0]?["step_id"] == "prepare")
        #expect(report["attempts"]?[0]?["params"] == ["n": 1])
        #expect(report["attempts"]?[0]?["idempotency_key"] == .string("\(id):prepare:_:1"))
        #expect(report["data"]?["user"] == "ada")
    }

    @Test func showOfAFailedInstanceShowsTheError() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        let id = try #require(CLIWorkspace.instanceID(in: try await workspace.run([file]).standardOutput))
        let text = try await workspace.show(id).standardOutput
        #expect(text.contains("error         step 'charge' failed: card declined (block charge, code declined)"))
        #expect(text.contains("✗ charge"))
        #expect(!text.contains("why isn't it running?"))
    }

    @Test func showOfAnUnknownInstanceExitsOne() async throws {
        let workspace = try CLIWorkspace()
        _ = try await waitingInstance(in: workspace)
        let unknown = try await workspace.show("00000000-0000-4000-8000-000000000000")
        #expect(unknown.exitCode == 1)
        #expect(unknown.standardError.contains("not found"))
        let noPrefix = try await workspace.show("ffffffff")
        #expect(noPrefix.exitCode == 1)
        #expect(noPrefix.standardError.contains("no instance id starts with 'ffffffff'"))
        // Not even a possible prefix: still "no such instance" (exit 1), as the README says.
        let notAnID = try await workspace.show("zz")
        #expect(notAnID.exitCode == 1)
        #expect(notAnID.standardError.contains("no instance id starts with 'zz'"))
    }

    @Test func completeRecordsTheAnswerAndResumeContinues() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        let output = try await CompleteCommand.parse([id, "decide", "no", "--db", workspace.database]).execute()
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("recorded: step 'decide' of instance \(id) answered \"no\""))
        #expect(output.standardOutput.contains("continue with: stepwise resume \(id) --db \(workspace.database)"))
        let resumed = try await workspace.resume([id])
        #expect(resumed.exitCode == 0)
        #expect(try await workspace.show(id, json: true).standardOutput.contains(#""decision": "no""#))
    }

    @Test func completeQueuesTheNextStepForResumeAndNumericChoicesAreTheirStrings() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        _ = try await CompleteCommand.parse([id, "decide", "no", "--db", workspace.database]).execute()
        // The next step is queued for its handler, not recorded as waiting for an unregistered one.
        let shown = try await workspace.show(id, json: true).standardOutput
        #expect(!shown.contains("to be registered"), "\(shown)")

        let numbered = try workspace.write(
            #"{"name": "pick", "version": 1, "blocks": [{"type": "step", "id": "n", "handler": "noop", "wait_for_input": {"prompt": "N?", "choices": [{"label": "One", "value": "1"}, {"label": "Two", "value": "2"}]}}]}"#,
            to: "pick.json")
        let picked = try #require(CLIWorkspace.instanceID(in: try await workspace.run([numbered]).standardOutput))
        let answered = try await CompleteCommand.parse([picked, "n", "2", "--db", workspace.database]).execute()
        #expect(answered.exitCode == 0, "\(answered.standardError)")
        #expect(answered.standardOutput.contains(#"answered "2""#))
        // Nothing else needed a handler: the instance finished, and no resume is suggested.
        #expect(answered.standardOutput.contains("instance \(picked) is completed"))
        #expect(!answered.standardOutput.contains("stepwise resume"))
    }

    @Test func signalsPauseUpdateAndAnswer() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        func signal(_ arguments: [String]) async throws -> CommandOutput {
            try await SignalCommand.parse([id] + arguments + ["--db", workspace.database]).execute()
        }
        let paused = try await signal(["pause"])
        #expect(paused.exitCode == 0, "\(paused.standardError)")
        #expect(paused.standardOutput.contains("(now paused)"))
        // A paused instance names the signal that resumes it, not `resume` (which would not move it).
        #expect(paused.standardOutput.contains("it stays paused until: stepwise signal \(id) resume"))
        #expect(try await workspace.show(id).standardOutput.contains("it runs again after: stepwise signal \(id) resume"))
        let updated = try await signal(["update_context", "--payload", #"{"data": {"tier": "pro"}}"#])
        #expect(updated.exitCode == 0, "\(updated.standardError)")
        #expect(try await workspace.show(id, json: true).standardOutput.contains(#""tier": "pro""#))
        // Arguments no instance could accept are unusable input (2), like any bad value.
        let unknown = try await signal(["explode"])
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError.contains("unknown signal type 'explode'"))
        let badPayload = try await signal(["update_context", "--payload", "{"])
        #expect(badPayload.exitCode == 2)
        let notAnObject = try await signal(["update_context", "--payload", "[1]"])
        #expect(notAnObject.exitCode == 2)
        #expect(notAnObject.standardError.contains("update_context needs --payload"))
        _ = try await signal(["resume"])
        let answered = try await signal(["human_input:decide", "--payload", #"{"value": "yes"}"#])
        #expect(answered.exitCode == 0, "\(answered.standardError)")
        #expect(try await workspace.show(id, json: true).standardOutput.contains(#""decision": "yes""#))
    }

    @Test func completeErrorsCarryTheEnginesMessage() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        func complete(_ arguments: [String]) async throws -> CommandOutput {
            try await CompleteCommand.parse(arguments + ["--db", workspace.database]).execute()
        }
        let wrongChoice = try await complete([id, "decide", "maybe"])
        #expect(wrongChoice.exitCode == 1)
        #expect(wrongChoice.standardError == "error: value 'maybe' is not one of the choices: yes, no\n")

        let notWaiting = try await complete([id, "prepare", "yes"])
        #expect(notWaiting.exitCode == 1)
        #expect(notWaiting.standardError.contains("step 'prepare' of instance \(id) is not waiting"))

        let unknown = try await complete(["00000000-0000-4000-8000-000000000000", "decide", "yes"])
        #expect(unknown.exitCode == 1)
        #expect(unknown.standardError.contains("instance 00000000-0000-4000-8000-000000000000 not found"))

        // Nothing changed: the wait is still open.
        #expect(try await workspace.show(id).standardOutput.contains("open waits"))
    }

    @Test func cancelEndsAWaitingInstanceAndRefusesAFinishedOne() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        let cancelled = try await CancelCommand.parse([id, "--db", workspace.database]).execute()
        #expect(cancelled.exitCode == 0)
        #expect(cancelled.standardOutput == "cancelled: instance \(id)\n")
        let again = try await CancelCommand.parse([id, "--db", workspace.database]).execute()
        #expect(again.exitCode == 1)
        #expect(again.standardError == "error: instance \(id) is cancelled\n")
        let late = try await CompleteCommand.parse([id, "decide", "yes", "--db", workspace.database]).execute()
        #expect(late.exitCode == 1)
        #expect(late.standardError == "error: step 'decide' of instance \(id) is not waiting (state: cancelled)\n")
    }

    @Test func readCommandsWriteNothingAndShowWhatCannotRun() async throws {
        // A stored sequence that no longer loads: `instances` and `show` only read (the next
        // engine run fails the instance), and `show` still shows it, with the reason.
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        try SQLiteConnection(path: workspace.database).execute("UPDATE sequences SET bytes = x'7b7d'")
        let listed = try await InstancesCommand.parse(["--db", workspace.database]).execute(now: 0)
        #expect(listed.exitCode == 0, "\(listed.standardError)")
        #expect(listed.standardOutput.contains("waiting"))
        let shown = try await workspace.show(id)
        #expect(shown.exitCode == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.contains("stored sequence approval v1 no longer validates"))
        let connection = try SQLiteConnection(path: workspace.database)
        #expect(try connection.queryValue("SELECT count(*) FROM dead_letters")?.int64Value == 0, "a read-only command wrote a dead letter")
        #expect(try connection.queryValue("SELECT state FROM instances WHERE id = ?", bindings: [.text(id)])?.textValue == "waiting")
    }

    @Test func parentFilterTakesAShortIdAndSaysWhenThereAreNoChildren() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        let output = try await InstancesCommand.parse(["--parent", String(id.prefix(8)), "--db", workspace.database]).execute(now: 0)
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardOutput == "instance \(id) has no child instances\n")
        let unknown = try await InstancesCommand.parse(["--parent", "ffff", "--db", workspace.database]).execute(now: 0)
        #expect(unknown.exitCode == 1)
    }

    @Test func aStepTheSequenceDoesNotHaveIsNamedSo() async throws {
        let workspace = try CLIWorkspace()
        let id = try await waitingInstance(in: workspace)
        let output = try await CompleteCommand.parse([id, "nosuch", "x", "--db", workspace.database]).execute()
        #expect(output.exitCode == 1)
        #expect(output.standardError.contains("step 'nosuch' of instance \(id) is not waiting (approval v1 has no step 'nosuch')"))
    }

    @Test func aRefusedDatabaseGetsNoLockFileBesideIt() async throws {
        let workspace = try CLIWorkspace()
        let text = try workspace.write("not a database", to: "text.db")
        let output = try await CompleteCommand.parse(["x", "y", "z", "--db", text]).execute()
        #expect(output.exitCode == 2)
        #expect(!FileManager.default.fileExists(atPath: text + ".lock"))
        let folder = workspace.directory + "/folder.db"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let refused = try await CancelCommand.parse(["x", "--db", folder]).execute()
        #expect(refused.exitCode == 2)
        #expect(refused.standardError.contains("it is not a regular file"))
        #expect(!FileManager.default.fileExists(atPath: folder + ".lock"))
    }

    @Test func readCommandsNeedAnExistingDatabase() async throws {
        let workspace = try CLIWorkspace()
        let output = try await InstancesCommand.parse(["--db", workspace.database]).execute(now: 0)
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("no database at \(workspace.database)"))
    }
}
