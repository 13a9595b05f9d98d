public import ArgumentParser
import Stepwise

/// `stepwise show ID`: one instance in full — state, why it is not running, open waits with
/// their choices, error, and the step timeline with durations, attempts and outputs.
///
/// Exit status: 0 shown, 1 no such instance, 2 unusable input.
public struct ShowCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show an instance: state, why it isn't running, open waits, error and step timeline.",
        discussion: "ID may be a unique prefix. Exit status: 0 shown, 1 no such instance, 2 unusable input."
    )

    @Argument(help: "The instance id, or a unique prefix of it.")
    var id: String

    @Flag(help: "Write JSON (every attempt with params, output or error; answers; data; outputs).")
    var json = false

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func run() async throws {
        let output = await execute(style: .standardOutput, now: SystemClock().now())
        try output.finish()
    }

    /// Shows the instance; `now` (Unix ms) dates attempts still in flight.
    func execute(style: TerminalStyle = .plain, now: Int64) async -> CommandOutput {
        let opened: OpenedDatabase
        do {
            opened = try OpenedDatabase.open(database.db, mustExist: true, exclusive: false)
        } catch {
            return error.output
        }
        // A reader: another command's engine may own the file (it takes no lock, writes nothing).
        await opened.engine.serveReadsOnly()
        let output: CommandOutput
        do {
            let engine = opened.engine
            let instance = try await resolveInstanceID(id, on: engine, database: database.db)
            let snapshot: InstanceSnapshot
            var history: [JournalEntry] = []
            var runs: [StepRun] = []
            let children: [InstanceID]
            var childStates: [(InstanceID, String, InstanceState)] = []
            snapshot = try await engine.instance(instance)
            // A damaged history still shows the instance, with the storage error instead of
            // its timeline (and exit status 2: the database is damaged).
            var historyError: StepwiseError?
            do {
                history = try await engine.history(of: instance)
                runs = try await engine.stepRuns(instanceId: instance)
            } catch {
                historyError = error
            }
            children = try await engine.childInstances(of: instance)
            for child in children {
                let s = try await engine.instance(child)
                childStates.append((child, s.sequenceName, s.state))
            }
            let unreadable = historyError.map { "error: the timeline is not shown: \($0.message)\n" } ?? ""
            let status: Int32 = historyError == nil ? 0 : 2
            if json {
                let report = InstanceReport.json(snapshot, runs: runs, history: history, children: children)
                output = CommandOutput(
                    standardOutput: JSONWriter.string(report, options: .prettyPrinted) + "\n", standardError: unreadable, exitCode: status)
            } else {
                output = CommandOutput(
                    standardOutput: render(
                        snapshot, history: historyError == nil ? history : nil, children: childStates, style: style, now: now),
                    standardError: unreadable, exitCode: status)
            }
        } catch {
            output = CommandFailure.output(for: error)
        }
        await opened.close()
        return output
    }

    private func render(
        _ s: InstanceSnapshot, history: [JournalEntry]?, children: [(InstanceID, String, InstanceState)],
        style: TerminalStyle, now: Int64
    ) -> String {
        let db = DatabaseOptions.flag(for: database.db)
        var out = style.bold("\(s.sequenceName) v\(s.sequenceVersion)") + " · instance \(s.id)\n"
        func field(_ name: String, _ value: String) { out += "  " + name.rightPadded(to: 14) + value + "\n" }
        field(
            "state",
            InstancesCommand.colour(s.state.rawValue, style: style)
                + (s.cancelRequested && !s.state.isTerminal ? " (cancel requested)" : ""))
        var times = "created \(Timestamp.rfc3339(s.createdAt)) · updated \(DurationText.text(s.updatedAt, now)) ago"
        if let finished = s.finishedAt { times += " · finished after \(DurationText.text(s.createdAt, finished))" }
        field("time", times)
        if let step = s.currentStep { field("current step", step) }
        if let parent = s.parentInstanceId { field("parent", parent.rawValue) }
        for (child, name, state) in children { field("child", "\(child) (\(name), \(state))") }
        if let key = s.dedupKey { field("dedup key", key) }
        if let error = s.error {
            var detail = style.red(error.message)
            if let block = error.blockID {
                detail += " (block \(block)" + (error.code.map { ", code \($0)" } ?? "") + ")"
            }
            field("error", detail)
            if s.parentInstanceId == nil { field("", "dead letter: stepwise dead-letters\(db)") }
        }
        if s.hooksRunning {
            field("hooks", "on_failure/on_cancel still running; they run on `stepwise resume \(s.id)\(db)`")
        }
        if !s.state.isTerminal {
            out += "\n" + style.bold("why isn't it running?") + "\n"
            var reasons = s.waitingReasons
            if reasons.isEmpty {
                switch s.state {
                case .running, .scheduled:
                    reasons = ["it is \(s.state): it moves on while an engine runs it (`stepwise resume \(s.id)\(db)`)"]
                default:
                    reasons = ["it is \(s.state) and the engine recorded no reason"]
                }
            }
            for reason in reasons { out += "  - \(reason)\n" }
            if s.state == .paused { out += "  it runs again after: stepwise signal \(s.id) resume\(db)\n" }
        }
        if !s.waits.isEmpty {
            out += "\n" + style.bold("open waits") + "\n"
            for wait in s.waits {
                // Several open waits of one step (concurrent for_each iterations) are told apart by
                // their wait ids, and each answer command names its own.
                let shared = s.waits.filter { $0.stepId == wait.stepId }.count > 1
                let waitFlag = shared ? " --wait-id \(shellQuoted(wait.waitId))" : ""
                out += "  \(style.yellow(wait.stepId))" + (wait.prompt.isEmpty ? "" : "  \(wait.prompt)")
                    + (shared ? style.dim("  (wait \(wait.waitId))") : "") + "\n"
                let choices =
                    wait.choices?.map { ["label": .string($0.label), "value": .string($0.value)] as JSONValue } ?? []
                for line in TimelineRenderer.choiceLines(choices) { out += "    \(line)\n" }
                if let since = wait.since { out += "    waiting for \(DurationText.text(since, now))" }
                if let timeout = wait.timeoutAt {
                    out += (wait.since == nil ? "   " : ";") + " times out at \(Timestamp.rfc3339(timeout))"
                }
                if wait.since != nil || wait.timeoutAt != nil { out += "\n" }
                if let storeAs = wait.storeAs { out += "    the answer is stored in context.data.\(storeAs)\n" }
                let example = InstanceReport.answerExample(wait)
                out +=
                    "    answer: stepwise complete \(s.id) \(wait.stepId) \(example)\(waitFlag)\(db), then stepwise resume \(s.id)\(db)\n"
                if !shared { out += "      or: stepwise resume \(s.id)\(db) --answer \(wait.stepId)=\(example)\n" }
            }
        }
        out += "\n" + style.bold("timeline") + "\n"
        var renderer = TimelineRenderer(mode: .history, style: style, origin: s.createdAt)
        var lines: [String] = []
        for entry in history ?? [] { lines += renderer.lines(for: entry) }
        lines += renderer.finish(now: now)
        if history == nil {
            out += "  (not shown: the history cannot be read)\n"
        } else {
            out += lines.isEmpty ? "  (nothing has run yet)\n" : lines.map { $0 + "\n" }.joined()
        }
        out += "\n  data     " + excerpt(.object(s.data), width: 100) + "\n"
        out += "  (full data, outputs, params and answers: stepwise show \(s.id) --json\(db))\n"
        return out
    }
}

extension String {
    /// The string padded on the right to `width` characters.
    func rightPadded(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
