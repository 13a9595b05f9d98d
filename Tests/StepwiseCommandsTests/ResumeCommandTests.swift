import ArgumentParser
import Stepwise
@testable import StepwiseCommands
import Testing

@Suite("stepwise resume")
struct ResumeCommandTests {
    @Test func resumeAfterAStopAtAWaitRepeatsNothing() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let script = try workspace.write(TestSequences.approvalHandlers, to: "handlers.json")
        let setup = HandlerSetup()
        let stopped = try await workspace.run([file, "--handlers", script], setup: setup)
        #expect(stopped.exitCode == RunConclusion.exitStoppedWaiting)
        #expect(setup.calls.count(of: "work") == 1)
        #expect(setup.calls.count(of: "ask") == 1)

        let resumed = try await workspace.resume(["--handlers", script, "--answer", "decide=yes"], setup: setup)
        #expect(resumed.exitCode == 0, "\(resumed.standardOutput)\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("↻ resuming approval v1"))
        // The open wait is shown again, with its choices, before it is answered.
        #expect(resumed.standardOutput.contains("waits for input: Ship it?"))
        #expect(resumed.standardOutput.contains("2) No → no"))
        #expect(resumed.standardOutput.contains("✓ finish"))
        #expect(!resumed.standardOutput.contains("✓ prepare"))
        // Each handler ran exactly once over both processes: prepare and finish, and the wait's.
        #expect(setup.calls.count(of: "work") == 2)
        #expect(setup.calls.count(of: "ask") == 1)
    }

    /// As under `run`, a misspelt `--answer` is named with the steps that do wait, not ignored.
    @Test func anAnswerForNoWaitingStepIsNamed() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let script = try workspace.write(TestSequences.approvalHandlers, to: "handlers.json")
        let stopped = try await workspace.run([file, "--handlers", script])
        #expect(stopped.exitCode == RunConclusion.exitStoppedWaiting)
        let resumed = try await workspace.resume(["--handlers", script, "--answer", "decid=yes"])
        #expect(resumed.exitCode == RunConclusion.exitStoppedWaiting)
        #expect(resumed.standardError.contains("warning: --answer decid: no step 'decid' waits for input (steps that wait: decide)"), "\(resumed.standardError)")
    }

    @Test func aDamagedHistoryStopsTheTimelineNotTheRun() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let script = try workspace.write(TestSequences.approvalHandlers, to: "handlers.json")
        let stopped = try await workspace.run([file, "--handlers", script])
        #expect(stopped.exitCode == RunConclusion.exitStoppedWaiting)
        try SQLiteConnection(path: workspace.database).execute("UPDATE journal_chunks SET entries = x'ff0102'")
        let resumed = try await workspace.resume(["--handlers", script, "--answer", "decide=yes"])
        #expect(resumed.exitCode == 0, "\(resumed.standardOutput)\(resumed.standardError)")
        #expect(resumed.standardError.contains("warning: the timeline of instance"))
        #expect(resumed.standardError.contains("is damaged"))
        #expect(resumed.standardOutput.contains("completed"))
    }

    @Test func resumeAsksAtTheTerminalWhenNoAnswerIsGiven() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        _ = try await workspace.run([file])
        let resumed = try await workspace.resume(["--json"], typed: ["Yes"])
        #expect(resumed.exitCode == 0, "\(resumed.standardError)")
        #expect(try JSONParser.parse(resumed.standardOutput)["instance"]?["data"]?["decision"] == "yes")
    }

    @Test func resumeOfAFinishedInstanceReportsItsEnd() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        let run = try await workspace.run([file])
        let id = try #require(CLIWorkspace.instanceID(in: run.standardOutput))
        let resumed = try await workspace.resume([id])
        #expect(resumed.exitCode == 1)
        #expect(resumed.standardOutput.contains("✗ failed"))
    }

    @Test func nothingToResumeExitsOne() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        _ = try await workspace.run([file])
        let resumed = try await workspace.resume([])
        #expect(resumed.exitCode == 1)
        #expect(resumed.standardError.contains("nothing to resume: \(workspace.database) has no unfinished instance"))
    }

    @Test func aMissingDatabaseIsNotCreated() async throws {
        let workspace = try CLIWorkspace()
        let resumed = try await workspace.resume([])
        #expect(resumed.exitCode == 2)
        #expect(resumed.standardError.contains("no database at \(workspace.database)"))
    }

    @Test func aSecondEngineOnTheSameDatabaseIsRefused() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        _ = try await workspace.run([file])
        let held = try OpenedDatabase.open(workspace.database, mustExist: true, exclusive: true)
        let refused = try await workspace.resume([])
        await held.close()
        #expect(refused.exitCode == 2)
        #expect(refused.standardError.contains("is in use by another stepwise command"))
    }
}
