import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CommandOutput {
    /// Writes both streams, then ends the command with its exit status (nonzero → `ExitCode`).
    ///
    /// - Throws: `ExitCode` when the status is not 0.
    func finish() throws {
        let code = emit()
        if code != 0 { throw ExitCode(code) }
    }
}

/// The terminal set-up shared by the commands that run instances live (`run`, `resume`, `demo`).
enum InteractiveRun {
    /// Streams the timeline, reads answers from standard input, turns Ctrl-C into a clean stop,
    /// and finishes with the body's output.
    ///
    /// - Throws: `ExitCode` when the body's status is not 0.
    static func perform(
        json: Bool, _ body: (RunConsole, TerminalInput, _ canAsk: Bool) async -> CommandOutput
    ) async throws {
        let console = RunConsole(timelineOnStandardError: json, isStreaming: true)
        let terminal = TerminalInput.standardInput()
        let interrupt = InterruptSignal.install(input: terminal, console: console)
        let output = await body(console, terminal, isatty(0) == 1)
        interrupt.remove()
        try output.finish()
    }
}
