public import ArgumentParser
import Foundation
import Stepwise

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `--db PATH` option every engine command takes.
public struct DatabaseOptions: ParsableArguments {
    /// The default database file, relative to the working directory.
    static let defaultPath = "stepwise.db"

    @Option(name: .long, help: ArgumentHelp("The SQLite database file.", valueName: "path"))
    var db: String = DatabaseOptions.defaultPath

    public init() {}

    /// The `--db` argument to repeat in printed commands (empty for the default database).
    static func flag(for path: String) -> String {
        path == defaultPath ? "" : " --db \(shellQuoted(path))"
    }
}

/// A command failure with its message and exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let message: String
    var exitCode: Int32
    /// Lines printed after the message (what to do next).
    var hint: String?

    init(_ message: String, exitCode: Int32, hint: String? = nil) {
        self.message = message
        self.exitCode = exitCode
        self.hint = hint
    }

    var description: String { message }

    /// The failure as a command's output.
    var output: CommandOutput {
        CommandOutput(standardError: "error: \(message)\n" + (hint.map { $0 + "\n" } ?? ""), exitCode: exitCode)
    }

    /// An engine error refused by the engine (exit 1), or a storage failure (exit 2).
    static func engine(_ error: StepwiseError) -> CommandFailure {
        let unusable: Set<StepwiseError.Code> = [.storage, .shutdown, .timeout]
        return CommandFailure(error.message, exitCode: unusable.contains(error.code) ? 2 : 1)
    }

    /// The output of a command that stopped on `error`: a failure as it is, an engine error as
    /// ``engine(_:)`` maps it, anything else as unusable input.
    static func output(for error: any Error) -> CommandOutput {
        switch error {
        case let failure as CommandFailure: failure.output
        case let error as StepwiseError: engine(error).output
        default: CommandFailure("\(error)", exitCode: 2).output
        }
    }
}

/// An engine opened on a database file, with the file lock that keeps other `stepwise`
/// processes from running a second engine on it.
final class OpenedDatabase {
    let engine: StepwiseEngine
    let path: String
    /// Every stored sequence version that still compiles.
    let storedSequences: [CompiledSequence]
    /// Handler names used by every stored sequence version.
    var storedHandlerNames: Set<String> { storedSequences.reduce(into: []) { $0.formUnion($1.handlerNames) } }
    private let lock: DatabaseLock?

    private init(engine: StepwiseEngine, path: String, storedSequences: [CompiledSequence], lock: DatabaseLock?) {
        self.engine = engine
        self.path = path
        self.storedSequences = storedSequences
        self.lock = lock
    }

    /// Opens the engine on `path`.
    ///
    /// - Parameters:
    ///   - mustExist: refuse a missing file instead of creating an empty database.
    ///   - exclusive: take the database's lock file so no other `stepwise` process runs an
    ///     engine on it at the same time (the engine must be the store's only writer).
    /// - Throws: ``CommandFailure`` with exit status 2.
    static func open(
        _ path: String, mustExist: Bool, exclusive: Bool, configuration: EngineConfiguration = EngineConfiguration(),
        syncChannel: (any SyncChannelDriver)? = nil
    ) throws(CommandFailure) -> OpenedDatabase {
        if mustExist && !FileManager.default.fileExists(atPath: path) {
            throw CommandFailure(
                "no database at \(path)", exitCode: 2,
                hint: "Start an instance with `stepwise run FILE.json` first, or pass --db PATH.")
        }
        // A file that cannot be ours is refused before a lock file is created beside it.
        if let refusal = SQLiteExecutionStore.foreignFileError(path) { throw CommandFailure(refusal.message, exitCode: 2) }
        let lock = exclusive ? try DatabaseLock.acquire(for: path) : nil
        do {
            let store = try SQLiteExecutionStore(path: path, durability: configuration.durability)
            var compiled: [CompiledSequence] = []
            for stored in try store.storedSequences() {
                guard let bytes = try store.sequenceBytes(stored.key) else { continue }
                let result = SequenceLoader.load(bytes, limits: SequenceLimits(maxDocumentBytes: Int.max))
                if let sequence = result.sequence { compiled.append(sequence) }
            }
            let engine = try StepwiseEngine(store: store, configuration: configuration, syncChannel: syncChannel)
            return OpenedDatabase(engine: engine, path: path, storedSequences: compiled, lock: lock)
        } catch {
            lock?.release(removingCreatedFile: true)
            throw CommandFailure(error.message, exitCode: 2)
        }
    }

    /// Registers a stand-in for every handler the stored sequences use and the engine lacks,
    /// for commands that change instances without running handlers (`complete`, `cancel`, a
    /// redrive, `sync`): a step they make reachable is then queued for its handler, which runs
    /// under `stepwise resume`, instead of being recorded as waiting for an unregistered one.
    /// No stand-in is ever called: these commands never dispatch.
    func standInForStoredHandlers() async {
        for name in storedHandlerNames where !BuiltinHandlers.names.contains(name) {
            await engine.registerHandler(name) { _ in
                throw StepError.retryable("handler '\(name)' runs under `stepwise resume`", code: "not_run_here")
            }
        }
    }

    /// The frame of a command that changes one instance without running handlers (`complete`,
    /// `cancel`, `signal`): opens `path` under its lock, stands in for the stored handlers,
    /// resolves `id` (a prefix), runs `body` and closes. `body` returns the standard output;
    /// an engine refusal is exit 1 (2 for storage), a ``CommandFailure`` its own status.
    static func changeInstance(
        _ id: String, in path: String, _ body: (StepwiseEngine, InstanceID) async throws -> String
    ) async -> CommandOutput {
        let opened: OpenedDatabase
        do {
            opened = try open(path, mustExist: true, exclusive: true)
        } catch {
            return error.output
        }
        await opened.standInForStoredHandlers()
        let output: CommandOutput
        do {
            let instance = try await resolveInstanceID(id, on: opened.engine, database: path)
            output = CommandOutput(standardOutput: try await body(opened.engine, instance))
        } catch {
            output = CommandFailure.output(for: error)
        }
        await opened.close()
        return output
    }

    /// Shuts the engine down and releases the lock.
    ///
    /// An engine opened without the lock only read: it is dropped without `shutdown()`, whose
    /// final pass may run housekeeping and write while another command's engine owns the file.
    func close() async {
        guard let lock else { return }
        await engine.shutdown()
        lock.release()
    }
}

/// An advisory lock (`flock`) on `<database>.lock`, held while a command runs an engine.
final class DatabaseLock: Sendable {
    private let descriptor: Int32
    private let path: String
    /// Whether acquiring the lock created the lock file.
    private let createdFile: Bool

    private init(descriptor: Int32, path: String, createdFile: Bool) {
        self.descriptor = descriptor
        self.path = path
        self.createdFile = createdFile
    }

    /// Takes the lock without waiting.
    ///
    /// - Throws: ``CommandFailure`` (exit 2) when another process holds it.
    static func acquire(for databasePath: String) throws(CommandFailure) -> DatabaseLock {
        let lockPath = databasePath + ".lock"
        let existed = access(lockPath, F_OK) == 0
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CommandFailure("cannot create \(lockPath): \(String(cString: strerror(errno)))", exitCode: 2)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            throw CommandFailure(
                "\(databasePath) is in use by another stepwise command", exitCode: 2,
                hint: "Stop it first (Ctrl-C), or pass another --db PATH.")
        }
        return DatabaseLock(descriptor: fd, path: lockPath, createdFile: !existed)
    }

    /// Releases the lock.
    ///
    /// - Parameter removingCreatedFile: also delete the lock file if acquiring created it (the
    ///   database was refused: nothing of ours is left beside it).
    func release(removingCreatedFile: Bool = false) {
        // Deleted while still held, so no other process can have locked this file meanwhile.
        if removingCreatedFile && createdFile { unlink(path) }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// Finds an instance by its full id or by an unambiguous prefix of it (as `show` prints them).
///
/// - Throws: ``CommandFailure``: exit 1 when no instance or several match, 2 for storage errors.
func resolveInstanceID(_ text: String, on engine: StepwiseEngine, database: String = DatabaseOptions.defaultPath)
    async throws(CommandFailure) -> InstanceID
{
    let hint = "List them with `stepwise instances\(DatabaseOptions.flag(for: database))`."
    if let id = InstanceID(rawValue: text) { return id }
    guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
        throw CommandFailure("the instance id is empty", exitCode: 2, hint: hint)
    }
    let prefix = text.lowercased()
    // Anything that cannot begin an id (not hexadecimal) names no instance: "no such instance"
    // (exit 1), as an unknown full id is.
    guard !prefix.isEmpty, prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
        throw CommandFailure(
            "no instance id starts with '\(text)'", exitCode: 1, hint: hint)
    }
    var matches: [InstanceID] = []
    var cursor: String?
    repeat {
        let page: Page<InstanceSummary>
        do {
            page = try await engine.instances(limit: 500, after: cursor)
        } catch {
            throw CommandFailure.engine(error)
        }
        matches += page.items.map(\.instanceId).filter { $0.rawValue.hasPrefix(prefix) }
        cursor = page.nextCursor
    } while cursor != nil && matches.count < 2
    switch matches.count {
    case 0: throw CommandFailure("no instance id starts with '\(text)'", exitCode: 1, hint: hint)
    case 1: return matches[0]
    default: throw CommandFailure("'\(text)' matches several instances; give more of the id", exitCode: 1)
    }
}

/// `text` quoted for a POSIX shell when it needs it.
func shellQuoted(_ text: String) -> String {
    let safe = text.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0) }
    if safe && !text.isEmpty { return text }
    return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
