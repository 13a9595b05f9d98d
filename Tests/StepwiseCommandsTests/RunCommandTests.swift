import ArgumentParser
import Foundation
import Stepwise
@testable import StepwiseCommands
import Testing

@Suite("stepwise run")
struct RunCommandTests {
    @Test func answersFromTheCommandLineCompleteTheInstance() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let script = try workspace.write(TestSequences.approvalHandlers, to: "handlers.json")
        let output = try await workspace.run([file, "--handlers", script, "--answer", "decide=yes"])
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("✓ prepare"))
        #expect(output.standardOutput.contains("⏸ decide"))
        #expect(output.standardOutput.contains("waits for input: Ship it?"))
        #expect(output.standardOutput.contains("1) Yes → yes"))
        #expect(output.standardOutput.contains("↳ answer from --answer: \"yes\""))
        #expect(output.standardOutput.contains("answered \"yes\""))
        #expect(output.standardOutput.contains("✓ completed"))
        #expect(output.standardError.isEmpty)
    }

    /// A misspelt `--answer` would be ignored without a word: it is named with the steps that do wait.
    @Test func anAnswerForNoWaitingStepIsNamed() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let output = try await workspace.run([file, "--answer", "decid=yes"])
        #expect(output.exitCode == RunConclusion.exitStoppedWaiting)
        #expect(output.standardError.contains("warning: --answer decid: no step 'decid' waits for input (steps that wait: decide)"), "\(output.standardError)")
    }

    @Test func withoutAnAnswerItStopsAndSaysHowToContinue() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let output = try await workspace.run([file])
        #expect(output.exitCode == RunConclusion.exitStoppedWaiting)
        let id = try #require(CLIWorkspace.instanceID(in: output.standardOutput))
        #expect(output.standardOutput.contains("stopped: instance \(id) waits for input at step 'decide'"))
        #expect(output.standardOutput.contains("stepwise resume \(id) --db \(workspace.database) --answer decide=yes"))
        #expect(output.standardOutput.contains("stepwise complete \(id) decide yes --db \(workspace.database)"))
    }

    @Test func aWaitInsideOnFailureStopsTheRunAndResumeAnswersIt() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(
            #"{"name": "hw", "version": 1, "blocks": [{"id": "a", "type": "step", "handler": "fail", "params": {"message": "boom"}}], "on_failure": [{"id": "ask", "type": "step", "handler": "noop", "wait_for_input": {"prompt": "retry?"}}]}"#,
            to: "hw.json")
        let stopped = try await workspace.run([file])
        #expect(stopped.exitCode == RunConclusion.exitStoppedWaiting, "\(stopped.standardOutput)")
        #expect(stopped.standardOutput.contains("waits for input at step 'ask'"))
        // `resume` without an id finds it: its on_failure list is not finished.
        let resumed = try await workspace.resume(["--answer", "ask=yes"])
        #expect(resumed.exitCode == 1, "\(resumed.standardOutput)\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("failed"))
    }

    @Test func handlersThatAreNeitherBuiltInNorScriptedReturnEmptyObjectsWithANotice() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let output = try await workspace.run([file, "--answer", "decide=no"])
        #expect(output.exitCode == 0)
        #expect(output.standardError.contains("handlers 'ask', 'work' are neither built in nor scripted: returning {}"))
        #expect(output.standardOutput.contains("✓ prepare                 "))
        #expect(output.standardOutput.contains("→ {}"))
    }

    @Test func anInvalidAnswerIsRefusedWithTheEnginesMessageAndAskedAgain() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let output = try await workspace.run([file, "--json"], typed: ["3", "maybe", "", "2"])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardError.contains("error: value '3' is not one of the choices: yes, no"))
        #expect(output.standardError.contains("error: value 'maybe' is not one of the choices: yes, no"))
        #expect(output.standardError.contains("answer for decide [1-2, or a value]: "))
        let summary = try JSONParser.parse(output.standardOutput)
        #expect(summary["outcome"] == "completed")
        #expect(summary["instance"]?["data"]?["decision"] == "no")
    }

    @Test func aRejectedCommandLineAnswerFallsBackToStopping() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let output = try await workspace.run([file, "--answer", "decide=maybe"])
        #expect(output.exitCode == RunConclusion.exitStoppedWaiting)
        #expect(output.standardError.contains("error: value 'maybe' is not one of the choices: yes, no"))
    }

    @Test func answersOfOneStepAreUsedInOrderAndJSONValuesParse() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(
            """
            {"name": "loop-answers", "version": 1, "blocks": [
              {"type": "loop", "id": "rounds", "condition": "true", "max_iterations": 3, "body": [
                {"type": "step", "id": "pick", "handler": "noop", "wait_for_input": {"prompt": "Pick"}}
              ]}
            ]}
            """, to: "loop.json")
        let output = try await workspace.run([file, "--json", "--answer", "pick=1", "--answer", #"pick={"a":[2]}"#, "--answer", "pick=text"])
        #expect(output.exitCode == 0, "\(output.standardError)")
        let answers = try JSONParser.parse(output.standardOutput)["instance"]?["answers"]?.arrayValue?.compactMap { $0["value"] }
        #expect(answers == [1, ["a": [2]], "text"])
    }

    @Test func jsonSummaryDescribesTheFinishedInstance() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let script = try workspace.write(TestSequences.approvalHandlers, to: "handlers.json")
        let output = try await workspace.run([file, "--json", "--handlers", script, "--answer", "decide=yes", "--input", #"{"user": "ada"}"#])
        #expect(output.exitCode == 0)
        let summary = try JSONParser.parse(output.standardOutput)
        #expect(summary["outcome"] == "completed")
        let instance = try #require(summary["instance"])
        #expect(instance["state"] == "completed")
        #expect(instance["sequence"] == "approval")
        #expect(instance["data"]?["user"] == "ada")
        #expect(instance["data"]?["decision"] == "yes")
        #expect(instance["outputs"]?["finish"] == ["n": 2])
        #expect(instance["attempts"]?.arrayValue?.map { $0["step_id"] } == ["prepare", "decide", "finish"])
        #expect(instance["answers"]?[0]?["value"] == "yes")
        // The timeline went to standard error, so standard output is only the JSON.
        #expect(output.standardError.contains("✓ prepare"))
    }

    @Test func aFailingStepFailsTheRunWithExitOne() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        let output = try await workspace.run([file])
        #expect(output.exitCode == 1)
        #expect(output.standardOutput.contains("✗ charge"))
        #expect(output.standardOutput.contains("attempt 1: card declined [declined]"))
        #expect(output.standardOutput.contains("✗ failed"))
        #expect(output.standardOutput.contains("step 'charge' failed: card declined"))
    }

    @Test func scriptedFailuresAreRetriedAsTheSequenceSays() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(
            """
            {"name": "flaky", "version": 1, "blocks": [
              {"type": "step", "id": "call", "handler": "api",
               "retry": {"max_attempts": 2, "initial_backoff": 1, "max_backoff": 1}}
            ]}
            """, to: "flaky.json")
        let script = try workspace.write(
            #"{"api": [{"fail": "timeout", "code": "503"}, {"output": {"ok": true}}]}"#, to: "handlers.json")
        let setup = HandlerSetup()
        let output = try await workspace.run([file, "--handlers", script], setup: setup)
        #expect(output.exitCode == 0, "\(output.standardOutput)")
        #expect(output.standardOutput.contains("attempt 1: timeout [503] — will retry"))
        #expect(output.standardOutput.contains("attempt 2"))
        #expect(setup.calls.count(of: "api") == 2)
    }

    @Test func subSequenceChildrenAreFollowedAndTheirWaitsAnswered() async throws {
        let workspace = try CLIWorkspace()
        let child = try workspace.write(
            """
            {"name": "child", "version": 1, "blocks": [
              {"type": "step", "id": "confirm", "handler": "noop", "wait_for_input": {"prompt": "OK?"}}
            ]}
            """, to: "child.json")
        let parent = try workspace.write(
            """
            {"name": "parent", "version": 1, "blocks": [
              {"type": "sub_sequence", "id": "sub", "sequence_name": "child"}
            ]}
            """, to: "parent.json")
        let output = try await workspace.run([parent, "--load", child, "--answer", "confirm=fine"])
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        #expect(output.standardOutput.contains("↳ child instance"))
        #expect(output.standardOutput.contains("answered \"fine\""))
    }

    @Test func startOptionsDedupKeyInstanceIdAndConfig() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let id = "6f0c3a52-8a3e-4c1d-9a57-1d2b3c4d5e6f"
        let first = try await workspace.run([file, "--instance-id", id, "--config", #"{"region": "eu"}"#, "--dedup-key", "order-7"])
        #expect(first.standardOutput.contains("instance \(id)"), "\(first.standardOutput)\(first.standardError)")
        let shown = try await workspace.show(id, json: true).standardOutput
        #expect(shown.contains(#""region": "eu""#), "\(shown)")
        // The key is held by the unfinished instance: the second run follows it, starting nothing.
        let second = try await workspace.run([file, "--dedup-key", "order-7"])
        #expect(second.standardOutput.contains("instance \(id)"), "\(second.standardOutput)")
        let bad = try await workspace.run([file, "--instance-id", "nope"])
        #expect(bad.exitCode == 2 && bad.standardError.contains("is not a UUID"))
    }

    @Test func unusableInputsExitTwo() async throws {
        let workspace = try CLIWorkspace()
        let missing = try await workspace.run([workspace.directory + "/missing.json"])
        #expect(missing.exitCode == 2)
        #expect(missing.standardError.contains("cannot read"))

        let invalid = try workspace.write(#"{"name": "x", "version": 1, "blocks": [{"type": "step", "id": "a"}]}"#, to: "bad.json")
        let invalidOutput = try await workspace.run([invalid])
        #expect(invalidOutput.exitCode == 2)
        #expect(invalidOutput.standardError.contains("is not a valid sequence (1 problem)"))
        #expect(invalidOutput.standardError.contains("/blocks/0/handler: missing_field"))

        let file = try workspace.write(TestSequences.approval, to: "approval.json")
        let badInput = try await workspace.run([file, "--input", "[1]"])
        #expect(badInput.exitCode == 2)
        #expect(badInput.standardError.contains("--input must be a JSON object, got array"))

        let badAnswer = try await workspace.run([file, "--answer", "novalue"])
        #expect(badAnswer.exitCode == 2)
        #expect(badAnswer.standardError.contains("--answer 'novalue' is not STEP=VALUE"))

        let script = try workspace.write(#"{"work": [{"output": 1, "fail": "x"}]}"#, to: "handlers.json")
        let badScript = try await workspace.run([file, "--handlers", script])
        #expect(badScript.exitCode == 2)
        #expect(badScript.standardError.contains("/work/0: a response has exactly one of output, echo or fail"))
    }

    @Test func changedDocumentsWithTheSameVersionAreAConflict() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(TestSequences.failing, to: "failing.json")
        _ = try await workspace.run([file])
        _ = try workspace.write(TestSequences.failing.replacingOccurrences(of: "card declined", with: "expired"), to: "failing.json")
        let output = try await workspace.run([file])
        #expect(output.exitCode == 2)
        #expect(output.standardError.contains("already stored with different content"))
        #expect(output.standardError.contains("new version"))
    }

    @Test func ctrlCStopsCleanlyAndResumeFinishes() async throws {
        let workspace = try CLIWorkspace()
        let file = try workspace.write(
            """
            {"name": "slow", "version": 1, "blocks": [
              {"type": "step", "id": "first", "handler": "slow"},
              {"type": "step", "id": "second", "handler": "slow"}
            ]}
            """, to: "slow.json")
        let script = try workspace.write(#"{"slow": [{"output": {"done": true}}]}"#, to: "handlers.json")
        var setup = HandlerSetup()
        let input = TerminalInput.scripted([])
        // The first call is still running when Ctrl-C comes, and goes on for well past the
        // run loop's 50 ms poll for it (timed from the interrupt, not from the call).
        setup.custom["slow"] = InterruptibleHandler(input: input, calls: setup.calls)
        let command = try RunCommand.parse([file, "--db", workspace.database])
        let run = Task { [setup] in await command.execute(console: .collecting(), input: input, canAsk: false, setup: setup) }
        while setup.calls.count(of: "slow") == 0 { try await Task.sleep(for: .milliseconds(5)) }
        input.interrupt()
        let stopped = await run.value
        #expect(stopped.exitCode == RunConclusion.exitInterrupted)
        let id = try #require(CLIWorkspace.instanceID(in: stopped.standardOutput))
        #expect(stopped.standardOutput.contains("stopped by Ctrl-C: instance \(id)"))
        #expect(stopped.standardOutput.contains("continue with: stepwise resume \(id) --db \(workspace.database)"))
        // The running handler was allowed to finish and its result is recorded.
        #expect(stopped.standardOutput.contains("✓ first"))
        #expect(setup.calls.count(of: "slow") == 1)

        let resumed = try await workspace.resume([String(id.prefix(8)), "--handlers", script], setup: setup)
        #expect(resumed.exitCode == 0, "\(resumed.standardOutput)\(resumed.standardError)")
        #expect(resumed.standardOutput.contains("✓ second"))
        #expect(!resumed.standardOutput.contains("✓ first"))
        #expect(setup.calls.count(of: "slow") == 2)
    }
}

/// A handler that runs until Ctrl-C was pressed, then a while longer (real time).
struct InterruptibleHandler: StepHandler {
    let input: TerminalInput
    let calls: HandlerCallLog

    func execute(_ context: StepContext) async throws -> JSONValue {
        _ = calls.record("slow")
        guard context.stepId == "first" else { return ["done": true] }
        while !input.isInterrupted { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(500))
        return ["done": true]
    }
}
