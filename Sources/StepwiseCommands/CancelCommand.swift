public import ArgumentParser
import Stepwise

/// `stepwise cancel ID`: cancels an instance (SEMANTICS §2.10).
///
/// Exit status: 0 cancelled (or cancellation requested while protected work finishes), 1
/// refused by the engine (already terminal, not found), 2 unusable input.
public struct CancelCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel an instance.",
        discussion: """
            Active steps are cancelled except protected work (a started cancellation_scope, the finally_block of a \
            started try_catch, a started step with cancellable: false), which finishes the next time an engine \
            runs it (`stepwise resume ID`); on_cancel runs then. Exit status: 0 cancelled or requested, \
            1 refused (already finished, not found), 2 unusable input.
            """
    )

    @Argument(help: "The instance id, or a unique prefix of it.")
    var id: String

    @OptionGroup var database: DatabaseOptions

    public init() {}

    public func run() async throws {
        let output = await execute()
        try output.finish()
    }

    /// Cancels the instance.
    func execute() async -> CommandOutput {
        await OpenedDatabase.changeInstance(id, in: database.db) { engine, instance in
            try await engine.cancelInstance(instance)
            let snapshot = try await engine.instance(instance)
            let db = DatabaseOptions.flag(for: database.db)
            var text: String
            if snapshot.state == .cancelled {
                text = "cancelled: instance \(instance)\n"
                if snapshot.hooksRunning {
                    text += "on_cancel runs the next time an engine runs: stepwise resume \(instance)\(db)\n"
                }
            } else {
                text =
                    "cancellation requested: instance \(instance) is \(snapshot.state); protected work finishes first\n"
                text += "let it finish with: stepwise resume \(instance)\(db)\n"
            }
            return text
        }
    }
}
