import Stepwise

/// The end of `run`, `resume` and `demo`: a closing line, what to do next, the exit status and,
/// with `--json`, the final summary on standard output.
///
/// Exit status: 0 completed; 1 failed or cancelled; 3 stopped while waiting (an answer or
/// something outside the CLI is needed); 130 stopped by Ctrl-C.
enum RunConclusion {
    static let exitCompleted: Int32 = 0
    static let exitFailed: Int32 = 1
    static let exitStoppedWaiting: Int32 = 3
    static let exitInterrupted: Int32 = 130

    /// Prints the closing lines and builds the command's output.
    ///
    /// - Parameters:
    ///   - databaseFlag: ` --db PATH` to repeat in printed commands, or empty.
    ///   - handlersFlag: ` --handlers FILE` to repeat in printed `resume` commands, or empty (a
    ///     resume without it would run placeholder handlers).
    static func conclude(
        _ outcome: RunSession.Outcome, engine: StepwiseEngine, console: RunConsole, databaseFlag: String,
        handlersFlag: String = "", json: Bool
    ) async -> CommandOutput {
        let resumeFlags = databaseFlag + handlersFlag
        let style = console.style
        let snapshot: InstanceSnapshot
        let name: String
        let exitCode: Int32
        var resumeCommand: String?
        switch outcome {
        case .finished(let s):
            snapshot = s
            let elapsed = s.finishedAt.map { " in " + DurationText.text(s.createdAt, $0) } ?? ""
            switch s.state {
            case .completed:
                name = "completed"
                exitCode = exitCompleted
                console.line(style.green("✓ completed") + elapsed + " · instance \(s.id)")
            case .failed:
                name = "failed"
                exitCode = exitFailed
                console.line(style.red("✗ failed") + elapsed + ": " + (s.error?.message ?? "unknown error"))
                console.line("  details: stepwise show \(s.id)\(databaseFlag)")
            default:
                name = s.state.rawValue
                exitCode = exitFailed
                console.line(style.yellow("■ \(s.state)") + elapsed + " · instance \(s.id)")
            }
        case .stoppedWaiting(let s, let waits):
            snapshot = s
            name = "stopped_waiting"
            exitCode = exitStoppedWaiting
            resumeCommand = "stepwise resume \(s.id)\(resumeFlags)"
            if let wait = waits.first {
                let example = InstanceReport.answerExample(wait)
                console.line(
                    style.yellow("⏸ stopped:") + " instance \(s.id) waits for input at step '\(wait.stepId)'"
                        + (waits.count > 1 ? " (and \(waits.count - 1) more)" : ""))
                console.line("  answer at a terminal:  stepwise resume \(s.id)\(resumeFlags)")
                console.line(
                    "  or in a script:        stepwise resume \(s.id)\(resumeFlags) --answer \(wait.stepId)=\(example)"
                )
                console.line(
                    "  or record it now:      stepwise complete \(wait.instanceId) \(wait.stepId) \(example)\(databaseFlag)"
                )
            } else {
                console.line(
                    style.yellow("⏸ stopped:") + " instance \(s.id) is \(s.state) and nothing here can move it on:")
                for reason in s.waitingReasons { console.line("  - \(reason)") }
                if s.state == .paused {
                    console.line("  it runs again after: stepwise signal \(s.id) resume\(databaseFlag)")
                    console.line("  then continue with:  stepwise resume \(s.id)\(resumeFlags)")
                } else {
                    console.line("  continue later with: stepwise resume \(s.id)\(resumeFlags)")
                }
            }
        case .interrupted(let s):
            snapshot = s
            name = "interrupted"
            exitCode = exitInterrupted
            resumeCommand = "stepwise resume \(s.id)\(resumeFlags)"
            console.line(style.yellow("■ stopped by Ctrl-C:") + " instance \(s.id) is \(s.state); nothing is lost.")
            console.line("  continue with: stepwise resume \(s.id)\(resumeFlags)")
        }
        guard json else { return console.output(exitCode: exitCode) }
        let history = (try? await engine.history(of: snapshot.id)) ?? []
        let runs = (try? await engine.stepRuns(instanceId: snapshot.id)) ?? []
        let children = (try? await engine.childInstances(of: snapshot.id)) ?? []
        var summary: JSONObject = [
            "outcome": .string(name),
            "instance": InstanceReport.json(snapshot, runs: runs, history: history, children: children),
        ]
        summary["resume_command"] = resumeCommand.map(JSONValue.string) ?? .null
        return console.output(
            exitCode: exitCode, json: JSONWriter.string(.object(summary), options: .prettyPrinted) + "\n")
    }
}
