public import ArgumentParser
import Stepwise

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `stepwise resume [ID]`: reopens the database and continues an instance where it stopped.
///
/// Exit status as for `run`.
public struct ResumeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Continue an instance where it stopped (after Ctrl-C, a stop at a wait, or a crash).",
        discussion: """
            Reopens the database (recovery re-runs an attempt that was in flight with the same attempt number and \
            idempotency key; nothing completed runs again), runs the engine and follows the instance with the same \
            timeline and prompts as run. Without ID: the most recently updated unfinished instance. Exit status: \
            0 completed, 1 failed or cancelled, 2 unusable input, 3 stopped while waiting, 130 stopped by Ctrl-C.
            """
    )

    @Argument(help: "The instance id, or a unique prefix of it.")
    var id: String?

    @Option(name: .customLong("handlers"), help: ArgumentHelp("Scripted handler responses (JSON).", valueName: "file"))
    var handlersFile: String?

    @Option(
        name: .customLong("answer"),
        help: ArgumentHelp("Answer a wait_for_input step; VALUE is JSON or text. Repeatable.", valueName: "step=value"))
    var answers: [String] = []

    @Flag(help: "Print a JSON summary on standard output; the timeline goes to standard error.")
    var json = false

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func run() async throws {
        try await InteractiveRun.perform(json: json) { console, terminal, canAsk in
            await execute(console: console, input: terminal, canAsk: canAsk)
        }
    }

    /// Runs the command with the given terminal (tests pass scripted input and a collecting console).
    func execute(
        console: RunConsole, input terminal: TerminalInput, canAsk: Bool, setup: HandlerSetup = HandlerSetup(),
        configuration: EngineConfiguration = EngineConfiguration()
    ) async -> CommandOutput {
        var setup = setup
        let book: AnswerBook
        let opened: OpenedDatabase
        do {
            if let handlersFile { setup.script = try HandlerScript.load(path: handlersFile) }
            book = try AnswerBook.parse(answers)
            opened = try OpenedDatabase.open(
                database.db, mustExist: true, exclusive: true, configuration: configuration)
        } catch {
            return error.output
        }
        for warning in book.unmatchedWarnings(for: opened.storedSequences) { console.error(warning) }
        let engine = opened.engine
        let placeholders = await setup.register(on: engine, names: opened.storedHandlerNames)
        if let notice = HandlerSetup.placeholderNotice(placeholders) { console.error(notice) }
        let output: CommandOutput
        do {
            let instance = try await chooseInstance(on: engine)
            let snapshot = try await engine.instance(instance)
            console.line(
                console.style.bold("↻ resuming \(snapshot.sequenceName) v\(snapshot.sequenceVersion)")
                    + " · instance \(instance) (\(snapshot.state)) · database \(database.db)")
            console.quitNotice = "continue with: stepwise resume \(instance)\(DatabaseOptions.flag(for: database.db))"
                + (handlersFile.map { " --handlers \(shellQuoted($0))" } ?? "")
            var session = RunSession(
                engine: engine, root: instance, console: console, answers: book, input: terminal, canAsk: canAsk,
                notes: setup.notes)
            session.showsPastEntries = false
            let outcome = try await session.drive()
            output = await RunConclusion.conclude(
                outcome, engine: engine, console: console, databaseFlag: DatabaseOptions.flag(for: database.db),
                handlersFlag: handlersFile.map { " --handlers \(shellQuoted($0))" } ?? "", json: json)
        } catch {
            output = CommandFailure.output(for: error)
        }
        await opened.close()
        return output
    }

    /// The instance named on the command line, or the most recently updated unfinished root instance.
    private func chooseInstance(on engine: StepwiseEngine) async throws -> InstanceID {
        if let id { return try await resolveInstanceID(id, on: engine, database: database.db) }
        let unfinished = try await engine.activeInstances().filter { $0.parentInstanceId == nil }
        if let latest = unfinished.first { return latest.instanceId }
        // An ended instance whose on_failure/on_cancel list waits for input is unfinished too.
        for wait in try await engine.pendingWaits().sorted(by: { ($0.since ?? 0) > ($1.since ?? 0) }) {
            if try await engine.instance(wait.instanceId).parentInstanceId == nil { return wait.instanceId }
        }
        throw CommandFailure(
            "nothing to resume: \(database.db) has no unfinished instance", exitCode: 1,
            hint: "List instances with `stepwise instances\(DatabaseOptions.flag(for: database.db))`.")
    }
}
