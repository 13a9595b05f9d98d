public import ArgumentParser
import Stepwise

/// `stepwise complete ID STEP VALUE`: answers an open `wait_for_input` (SEMANTICS §2.9).
///
/// VALUE is JSON when it parses as JSON, else text; the engine receives `{"value": VALUE}`.
/// Exit status: 0 accepted, 1 refused by the engine (nothing changed), 2 unusable input.
public struct CompleteCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "complete",
        abstract: "Answer a step that waits for input.",
        discussion: """
            VALUE is JSON when it parses as JSON (true, 42, ["news"], "quoted"), else plain text; the engine \
            receives {"value": VALUE}. The instance moves on the next time an engine runs it \
            (`stepwise resume ID`). Exit status: 0 accepted, 1 refused (nothing changed), 2 unusable input.
            """
    )

    @Argument(help: "The instance id, or a unique prefix of it.")
    var id: String

    @Argument(help: "The waiting step's id.")
    var step: String

    @Argument(help: "The answer: JSON or text.")
    var value: String

    @Option(
        help: ArgumentHelp("Which wait, when several of the step are open (default: the oldest).", valueName: "wait-id")
    )
    var waitId: String?

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func run() async throws {
        let output = await execute()
        try output.finish()
    }

    /// Records the answer.
    func execute() async -> CommandOutput {
        await OpenedDatabase.changeInstance(id, in: database.db) { engine, instance in
            let choices = (try? await engine.instance(instance))?.waits.first { $0.stepId == step }?.choices
            let answer = choiceAdjusted(answerValue(value), choices: choices)
            try await engine.completeStep(instanceId: instance, stepId: step, output: ["value": answer], waitId: waitId)
            var text = "recorded: step '\(step)' of instance \(instance) answered \(JSONWriter.string(answer))\n"
            // Steps that need no handler (routers, the end of the flow) move on at once.
            if let after = try? await engine.instance(instance), after.state.isTerminal && !after.hooksRunning {
                text += "instance \(instance) is \(after.state)\n"
            } else {
                text += "continue with: stepwise resume \(instance)\(DatabaseOptions.flag(for: database.db))\n"
            }
            return text
        }
    }
}
