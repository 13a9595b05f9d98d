public import ArgumentParser
import Stepwise

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `stepwise run FILE`: loads a sequence, starts an instance and follows it with a live timeline.
///
/// Exit status: 0 completed, 1 failed or cancelled, 2 unusable input, 3 stopped while waiting
/// (no answer available), 130 stopped by Ctrl-C.
public struct RunCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a sequence on the local database and follow it step by step.",
        discussion: """
            Loads FILE into the database, starts an instance and runs the engine with a live timeline. \
            Handlers: the engine's built-ins (noop, log, echo, sleep, set, fail), scripted responses from \
            --handlers (the conformance format: {"handler": [{"output": …}, {"fail": "…"}, …]}), and {} for any \
            other name. At a wait_for_input step the answer comes from --answer STEP=VALUE or is asked at the \
            terminal; without either the run stops and prints how to continue. Ctrl-C stops cleanly and \
            `stepwise resume ID` continues. Exit status: 0 completed, 1 failed or cancelled, 2 unusable input, \
            3 stopped while waiting, 130 stopped by Ctrl-C.
            """
    )

    @Argument(help: "The sequence file (JSON).")
    var file: String

    @Option(help: ArgumentHelp("context.data for the instance: a JSON object.", valueName: "json"))
    var input: String?

    @Option(name: .customLong("handlers"), help: ArgumentHelp("Scripted handler responses (JSON).", valueName: "file"))
    var handlersFile: String?

    @Option(
        name: .customLong("answer"),
        help: ArgumentHelp("Answer a wait_for_input step; VALUE is JSON or text. Repeatable.", valueName: "step=value"))
    var answers: [String] = []

    @Option(
        name: .customLong("load"),
        help: ArgumentHelp("Load another sequence first (a sub_sequence target). Repeatable.", valueName: "file"))
    var extraFiles: [String] = []

    @Option(help: ArgumentHelp("A dedup key: while an unfinished instance holds it, that one is followed instead of starting another.", valueName: "key"))
    var dedupKey: String?

    @Option(help: ArgumentHelp("The new instance's id (a UUID).", valueName: "uuid"))
    var instanceId: String?

    @Option(help: ArgumentHelp("context.config for the instance: a JSON object.", valueName: "json"))
    var config: String?

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
        let launch: SequenceLaunch
        do {
            var setup = setup
            if let handlersFile { setup.script = try HandlerScript.load(path: handlersFile) }
            launch = SequenceLaunch(
                sequence: try .file(file),
                extraSequences: try extraFiles.map { path throws(CommandFailure) in try .file(path) },
                input: try Self.parseInput(input), setup: setup, answers: try AnswerBook.parse(answers),
                databasePath: database.db, json: json, configuration: configuration, handlersFile: handlersFile,
                dedupKey: dedupKey, startOptions: try startOptions())
        } catch {
            return error.output
        }
        return await launch.perform(console: console, input: terminal, canAsk: canAsk)
    }

    /// `--instance-id` and `--config` as start options.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) for an id that is not a UUID or a config that is not an object.
    func startOptions() throws(CommandFailure) -> StartOptions {
        var options = StartOptions()
        if let instanceId {
            guard let id = InstanceID(rawValue: instanceId) else {
                throw CommandFailure("--instance-id '\(instanceId)' is not a UUID", exitCode: 2)
            }
            options.instanceId = id
        }
        if let config { options.config = try Self.parseObject(config, option: "--config") }
        return options
    }

    /// `--input`: a JSON object; empty is `{}` (SEMANTICS §6.3).
    static func parseInput(_ text: String?) throws(CommandFailure) -> JSONObject {
        guard let text, !text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" }) else { return JSONObject() }
        return try parseObject(text, option: "--input")
    }

    /// An option's value that must be a JSON object.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) naming `option`, with the parser's position.
    static func parseObject(_ text: String, option: String) throws(CommandFailure) -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser.parse(text)
        } catch {
            throw CommandFailure("\(option) is not valid JSON: \(error)", exitCode: 2)
        }
        guard case .object(let object) = value else {
            throw CommandFailure("\(option) must be a JSON object, got \(value.typeName)", exitCode: 2)
        }
        return object
    }
}
