public import ArgumentParser
import Foundation
import StepwiseCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `stepwise keygen [NAME] [--out DIR]`: writes an Ed25519 key pair for signing manifests.
///
/// Files: `DIR/NAME.key`, the base64 of the 32-byte private seed and a newline, created with
/// mode 0600; `DIR/NAME.pub`, the base64 of the 32-byte raw public key and a newline (the form
/// `rootPublicKey` and `--root-key` accept). Existing files are never overwritten unless
/// `--force`. The private key is never printed. Exit status: 0 written, 2 unusable input.
public struct KeygenCommand: AsyncParsableCommand {
    /// Name, abstract and help text.
    public static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Generate an Ed25519 key pair for signing manifests and sequences.",
        discussion: """
            Writes NAME.key (base64 of the 32-byte private seed, mode 0600: keep it secret) and NAME.pub \
            (base64 of the 32-byte public key: configure it as rootPublicKey, or pass it to --trust-key). \
            Exit status: 0 written, 2 unusable input (files exist, directory not writable).
            """
    )

    @Argument(help: "Base name of the two files.")
    var name: String = "stepwise"

    @Option(help: "Directory to write to (created if missing).")
    var out: String = "."

    @Flag(help: "Overwrite existing key files.")
    var force = false

    /// Creates the command (ArgumentParser fills in the options).
    public init() {}

    /// Runs the command, prints its output and exits with its status.
    ///
    /// - Throws: `ExitCode` for a non-zero status.
    public func run() async throws {
        let output = Self.execute(name: name, out: out, force: force)
        try output.finish()
    }

    /// Generates and writes a key pair.
    static func execute(name: String, out: String, force: Bool, key: Ed25519PrivateKey = .generate()) -> CommandOutput {
        guard !name.isEmpty, !name.contains("/") else {
            return CommandOutput(standardError: "error: NAME must be a plain file name\n", exitCode: 2)
        }
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        let privatePath = directory.appendingPathComponent(name + ".key").path
        let publicPath = directory.appendingPathComponent(name + ".pub").path
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            return CommandOutput(standardError: "error: cannot create \(out)\n", exitCode: 2)
        }
        if !force {
            for path in [privatePath, publicPath] where FileManager.default.fileExists(atPath: path) {
                return CommandOutput(standardError: "error: \(path) exists (use --force to replace it)\n", exitCode: 2)
            }
        }
        do {
            try KeyFiles.writeAtomically(Array((Base64.encode(key.seedRepresentation) + "\n").utf8), to: privatePath, mode: 0o600)
            try KeyFiles.writeAtomically(Array((key.publicKey.base64 + "\n").utf8), to: publicPath, mode: 0o644)
        } catch {
            return CommandOutput(standardError: "error: \(error)\n", exitCode: 2)
        }
        return CommandOutput(
            standardOutput: """
                wrote \(privatePath) (private seed, mode 0600: keep it secret, never commit it)
                wrote \(publicPath)
                public key: \(key.publicKey.base64)

                """)
    }
}

/// Reading and writing key files for the manifest commands.
enum KeyFiles {
    /// Reads a private key file: base64 of the 32-byte seed (as `keygen` writes), 64 hex digits,
    /// or base64 of libsodium's 64-byte secret key (seed ‖ public key).
    ///
    /// - Returns: the key, and a warning when the file is readable by group or others.
    /// - Throws: ``InputError`` naming the file (never its content).
    static func readPrivateKey(_ path: String) throws(InputError) -> (key: Ed25519PrivateKey, warning: String?) {
        // A public key is also base64 of 32 bytes: refuse the likely mix-up instead of signing with garbage.
        if path.hasSuffix(".pub") { throw InputError(message: "\(path) looks like a public key; pass the .key file") }
        let text = String(decoding: try InputFiles.read(path), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var seed: [UInt8]?
        if text.utf8.count == 64, let bytes = Hex.decode(text) {
            seed = bytes
        } else if let bytes = Base64.decode(text) {
            if bytes.count == 32 { seed = bytes }
            if bytes.count == 64 { seed = Array(bytes.prefix(32)) }
        }
        guard let seed, let key = try? Ed25519PrivateKey(seed: seed) else {
            throw InputError(message: "\(path) is not a private key (expected base64 of a 32-byte seed, as written by keygen)")
        }
        if let bytes = Base64.decode(text), bytes.count == 64, Array(bytes.suffix(32)) != key.publicKey.rawRepresentation {
            throw InputError(message: "\(path): the secret key's public half does not match its seed")
        }
        var warning: String?
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber,
            mode.intValue & 0o077 != 0
        {
            warning = "warning: \(path) is readable by others (mode \(String(mode.intValue & 0o777, radix: 8))); use chmod 600\n"
        }
        return (key, warning)
    }

    /// Reads a public key: a file holding one, or the key text itself (base64, hex or SPKI).
    ///
    /// - Throws: ``InputError`` naming the argument.
    static func readPublicKey(_ argument: String, option: String) throws(InputError) -> Ed25519PublicKey {
        var isDirectory: ObjCBool = false
        let isFile = FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) && !isDirectory.boolValue
        let text = isFile ? String(decoding: try InputFiles.read(argument), as: UTF8.self) : argument
        do { return try Ed25519PublicKey(parsing: text) } catch {
            // Not a key, and written like a path (`./root.pub`, `keys/root.pub`): say the file is missing.
            let looksLikePath = ["./", "../", "~/"].contains { argument.hasPrefix($0) } || argument.hasSuffix(".pub")
            if !isFile && looksLikePath {
                throw InputError(message: "\(option): \(argument): no such file (and not a key either)")
            }
            throw InputError(message: "\(option): \(isFile ? argument + ": " : "")\(error.message)")
        }
    }

    /// Writes `bytes` to a temporary file created with `mode` beside `path`, then renames it over `path`.
    ///
    /// The file never exists with wider permissions than `mode`.
    static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t) throws(InputError) {
        let temporary = path + ".tmp-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard fd >= 0 else { throw InputError(message: "cannot create \(path)") }
        var ok = true
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 {
                    ok = false
                    return
                }
                offset += n
            }
        }
        if fsync(fd) != 0 { ok = false }
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw InputError(message: "cannot write \(path)")
        }
    }
}
