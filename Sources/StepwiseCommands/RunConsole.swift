import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a running command writes: the timeline (standard output, or standard error when
/// standard output carries `--json`), errors, and a transient progress line on a terminal.
///
/// When `isStreaming` is false (tests) everything is collected instead and returned in the
/// command's ``CommandOutput``.
final class RunConsole: Sendable {
    private struct State {
        var timeline = ""
        var errors = ""
        var hasStatusLine = false
        var quitNotice: String?
    }

    /// Whether the timeline goes to standard error (standard output holds JSON).
    let timelineOnStandardError: Bool
    /// Whether text is written at once (a real process) or collected (tests).
    let isStreaming: Bool
    /// Whether a progress line is drawn (a streaming terminal only).
    let showsProgress: Bool
    /// Styling for the timeline's stream.
    let style: TerminalStyle
    private let state = Mutex(State())

    init(timelineOnStandardError: Bool, isStreaming: Bool) {
        self.timelineOnStandardError = timelineOnStandardError
        self.isStreaming = isStreaming
        let descriptor: Int32 = timelineOnStandardError ? 2 : 1
        let terminal = isStreaming && isatty(descriptor) == 1
        // NO_COLOR asks for plain output: no colour, and no redrawn progress line either.
        let plain = getenv("NO_COLOR") != nil
        showsProgress = terminal && !plain
        style = TerminalStyle(enabled: terminal && !plain)
    }

    /// A console that collects everything (tests, in-process runs).
    static func collecting(timelineOnStandardError: Bool = false) -> RunConsole {
        RunConsole(timelineOnStandardError: timelineOnStandardError, isStreaming: false)
    }

    /// Writes timeline lines.
    func line(_ text: String) { write(text + "\n", toErrors: false) }

    /// Writes text without a newline (an input prompt).
    func prompt(_ text: String) { write(text, toErrors: false) }

    /// Writes an error or notice line to standard error.
    func error(_ text: String) { write(text + "\n", toErrors: true) }

    /// What a second Ctrl-C prints before the process quits at once (how to continue).
    var quitNotice: String? {
        get { state.withLock { $0.quitNotice } }
        set { state.withLock { $0.quitNotice = newValue } }
    }

    /// Shows (or clears, with `nil`) the transient progress line.
    func status(_ text: String?) {
        guard showsProgress else { return }
        let clear = state.withLock { s -> Bool in
            defer { s.hasStatusLine = text != nil }
            return s.hasStatusLine
        }
        var out = clear ? "\r\u{1B}[2K" : ""
        if let text { out += style.dim(text) }
        if !out.isEmpty { raw(out, descriptor: timelineOnStandardError ? 2 : 1) }
    }

    /// The collected output, as a command's output with `exitCode`.
    func output(exitCode: Int32, json: String = "") -> CommandOutput {
        state.withLock { s in
            let timeline = s.timeline
            let errors = s.errors
            s.timeline = ""
            s.errors = ""
            return CommandOutput(
                standardOutput: timelineOnStandardError ? json : timeline + json,
                standardError: timelineOnStandardError ? timeline + errors : errors, exitCode: exitCode)
        }
    }

    private func write(_ text: String, toErrors: Bool) {
        if isStreaming {
            status(nil)
            raw(text, descriptor: toErrors || timelineOnStandardError ? 2 : 1)
            return
        }
        state.withLock { s in
            if toErrors { s.errors += text } else { s.timeline += text }
        }
    }

    private func raw(_ text: String, descriptor: Int32) {
        if descriptor == 1 {
            CommandOutput(standardOutput: text).writeNow()
        } else {
            CommandOutput(standardError: text).writeNow()
        }
    }
}
