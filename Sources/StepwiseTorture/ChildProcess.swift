import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its standard input and error on `/dev/null` and
/// its standard output on `/dev/null` or in a file.
///
/// Not Foundation's `Process`: on Linux its `run()` crashes now and then (it copies whole
/// directory entries while it lists `/proc/self/fd` and can read past the end of glibc's
/// buffer: swift-corelibs-foundation #5472, still in Swift 6.3), and the crash harness and the
/// tests start hundreds of children. The output goes to a file rather than a pipe so that no
/// descriptor of the parent can leak into another child started at the same moment.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
    }

    /// The child's process id.
    public let pid: Int32

    /// Starts `executable` with `arguments` and the parent's environment.
    ///
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: the arguments after the program name.
    ///   - outputFile: where standard output goes (created or truncated); `/dev/null` if `nil`.
    /// - Throws: `POSIXError` with `posix_spawn`'s error (a missing or non-executable file).
    public init(executable: String, arguments: [String], outputFile: String? = nil) throws {
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        let environment = _NSGetEnviron().pointee
        #else
        var actions = posix_spawn_file_actions_t()
        let environment = environ
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the child to end (blocking the calling thread) and reaps it.
    public func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // The wait status: the low 7 bits hold the signal (0: exited), the next byte the exit status.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    /// Waits for the child to end and reaps it, on a thread of its own.
    ///
    /// For async callers: ``wait()`` would hold one of the few threads of Swift's cooperative
    /// pool for the child's whole life, and with two such waits on a two-core machine every
    /// other task (a handler, a timer) would stall until a child ended.
    public func termination() async -> Termination {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.wait()) }
        }
    }

    /// Runs `executable` to its end.
    ///
    /// - Returns: how it ended and its standard output.
    /// - Throws: `POSIXError` when it cannot be started.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> (Termination, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stepwise-child-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let child = try ChildProcess(executable: executable, arguments: arguments, outputFile: file)
        let termination = await child.termination()
        return (termination, (try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
    }
}
