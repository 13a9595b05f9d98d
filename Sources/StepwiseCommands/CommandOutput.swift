#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a command produced: its text and its exit status.
///
/// Commands compute an output first and print it second, so tests can check both without
/// spawning a process.
public struct CommandOutput: Sendable, Hashable {
    /// The text for standard output (ends with a newline when not empty).
    public var standardOutput: String
    /// The text for standard error.
    public var standardError: String
    /// The process exit status.
    public var exitCode: Int32

    /// Creates an output.
    public init(standardOutput: String = "", standardError: String = "", exitCode: Int32 = 0) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.exitCode = exitCode
    }

    /// Writes both streams now (for progress lines).
    func writeNow() { _ = emit() }

    /// Writes both streams and returns the exit code.
    func emit() -> Int32 {
        if !standardOutput.isEmpty { writeAll(standardOutput, to: 1) }
        if !standardError.isEmpty { writeAll(standardError, to: 2) }
        return exitCode
    }

    private func writeAll(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}

/// Terminal styling, applied only when standard output is a terminal.
struct TerminalStyle: Sendable {
    let enabled: Bool

    /// Styling for standard output: on for a terminal unless `NO_COLOR` is set.
    static var standardOutput: TerminalStyle {
        TerminalStyle(enabled: isatty(1) == 1 && getenv("NO_COLOR") == nil)
    }

    static let plain = TerminalStyle(enabled: false)

    func green(_ s: String) -> String { enabled ? "\u{1B}[32m\(s)\u{1B}[0m" : s }
    func red(_ s: String) -> String { enabled ? "\u{1B}[31m\(s)\u{1B}[0m" : s }
    func yellow(_ s: String) -> String { enabled ? "\u{1B}[33m\(s)\u{1B}[0m" : s }
    func bold(_ s: String) -> String { enabled ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    func dim(_ s: String) -> String { enabled ? "\u{1B}[2m\(s)\u{1B}[0m" : s }
}
