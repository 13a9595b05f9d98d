public import ArgumentParser

/// The `stepwise` command-line tool: validate sequences, evaluate expressions, and more.
///
/// The executable target only calls ``StepwiseCLI/main()``; every subcommand lives here so tests
/// can run them in-process.
public struct StepwiseCLI: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "stepwise",
        abstract: "Run server-pushed workflows durably, and check them before they ship.",
        subcommands: [
            ValidateCommand.self, DescribeCommand.self, EvalCommand.self, ConformanceCommand.self, CrashChildCommand.self, TortureCommand.self, TortureChildCommand.self,
            KeygenCommand.self, PublishCommand.self, VerifyManifestCommand.self,
            DemoCommand.self, RunCommand.self, ResumeCommand.self, InstancesCommand.self, ShowCommand.self,
            SequencesCommand.self, CompleteCommand.self, CancelCommand.self, SignalCommand.self, DeadLettersCommand.self,
            ServeCommand.self, SyncCommand.self,
        ]
    )

    public init() {}
}

extension StepwiseCLI {
    /// Parses the process arguments, runs the chosen command and exits with its status.
    ///
    /// The executable calls this, so it needs no ArgumentParser import of its own. Arguments
    /// that cannot be used (a missing argument, an unknown option, a bad value) exit with 2,
    /// the status every command gives unusable input, not ArgumentParser's 64.
    public static func runFromCommandLine() async {
        // ArgumentParser answers `help <unknown>` with the root help and status 0, which
        // hides a typo from scripts: name it and exit 2 like any other unusable argument.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count >= 2, arguments[0] == "help", let unknown = unknownSubcommand(arguments[1]) {
            CommandOutput(
                standardError: "Error: unknown subcommand '\(unknown)'; see 'stepwise help' for the list\n", exitCode: 2
            ).writeNow()
            exit(withError: ExitCode(2))
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                CommandOutput(standardError: fullMessage(for: error) + "\n", exitCode: 2).writeNow()
                exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}

extension StepwiseCLI {
    /// `name` when no subcommand is called so (options such as `--help` are left to the parser).
    static func unknownSubcommand(_ name: String) -> String? {
        guard !name.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName }
        return names.contains(name) ? nil : name
    }
}
