public import ArgumentParser
import Stepwise

/// `stepwise signal ID TYPE [--payload JSON]`: sends a signal to an instance (SEMANTICS §2.12):
/// `pause`, `resume`, `cancel`, `update_context` (payload `{"data": {…}}`) or
/// `human_input:<step>` (payload as for `complete`).
///
/// Exit status: 0 recorded, 1 refused by the engine (nothing changed), 2 unusable input.
public struct SignalCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "signal",
        abstract: "Send a signal to an instance: pause, resume, cancel, update_context or human_input:<step>.",
        discussion: """
            update_context merges the top-level keys of the payload's "data" object into context.data: \
            stepwise signal ID update_context --payload '{"data": {"tier": "pro"}}'. human_input:<step> answers a \
            wait as `complete` does. The instance moves on the next time an engine runs it (`stepwise resume ID`). \
            Exit status: 0 recorded, 1 refused (nothing changed), 2 unusable input.
            """
    )

    @Argument(help: "The instance id, or a unique prefix of it.")
    var id: String

    @Argument(help: "The signal type.")
    var type: String

    @Option(help: ArgumentHelp("The signal's payload (JSON).", valueName: "json"))
    var payload: String?

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func run() async throws {
        let output = await execute()
        try output.finish()
    }

    /// Sends the signal.
    func execute() async -> CommandOutput {
        var payloadValue: JSONValue = .null
        if let payload {
            do {
                payloadValue = try JSONParser.parse(payload)
            } catch {
                return CommandFailure("--payload is not valid JSON: \(error)", exitCode: 2).output
            }
        }
        // Arguments the engine would refuse whatever the instance: unusable input (status 2).
        guard StepwiseEngine.signalTypes.contains(type) || (type.hasPrefix("human_input:") && type.count > "human_input:".count) else {
            return CommandFailure(
                "unknown signal type '\(type)'", exitCode: 2,
                hint: "Signals: pause, resume, cancel, update_context (with --payload '{\"data\": {…}}'), human_input:STEP.").output
        }
        if type == "update_context", payloadValue["data"]?.objectValue == nil {
            return CommandFailure("update_context needs --payload '{\"data\": {…}}' (an object under \"data\")", exitCode: 2).output
        }
        return await OpenedDatabase.changeInstance(id, in: database.db) { engine, instance in
            try await engine.sendSignal(instanceId: instance, type: type, payload: payloadValue)
            let after = try? await engine.instance(instance)
            var text = "signalled: \(type) to instance \(instance)"
            if let after { text += " (now \(after.state))" }
            text += "\n"
            let flag = DatabaseOptions.flag(for: database.db)
            if let after, after.state == .paused {
                // `resume` runs an engine; a paused instance waits for the resume signal first.
                text += "it stays paused until: stepwise signal \(instance) resume\(flag)\n"
            } else if let after, !after.state.isTerminal || after.hooksRunning {
                text += "it moves on when an engine runs it: stepwise resume \(instance)\(flag)\n"
            }
            return text
        }
    }
}
