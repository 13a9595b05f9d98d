public import ArgumentParser
import Foundation
import StepwiseCrypto
import StepwiseExecution
import StepwiseJSON
import StepwiseSync

/// `stepwise publish`: signs sequences and writes a manifest directory (SYNC.md §3.11).
///
/// Exit status: 0 published; 1 a sequence is invalid (every problem listed, nothing written);
/// 2 unusable input (keys, files, options, or an existing manifest that does not verify with
/// the root key).
public struct PublishCommand: AsyncParsableCommand {
    /// Name, abstract and help text.
    public static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Sign sequences and write a signed manifest directory for devices to sync.",
        discussion: """
            Writes OUT/sequences/<sha256>.json (canonical JSON), OUT/sequences/<sha256>.sig (base64 Ed25519) and, \
            last and atomically, OUT/manifest.json (base64 signature line, LF, canonical body). An existing \
            OUT/manifest.json must verify with the root key: its manifest_version and removed list carry forward. \
            Serve manifest.json with a short cache and sequences/ as immutable. Exit status: 0 published, \
            1 invalid sequence, 2 unusable input.
            """
    )

    @Option(help: "Root private key file (signs the manifest; the sequences too without --signing-key).")
    var key: String

    @Option(help: "key_id of the root key.")
    var keyId: String = "root"

    @Option(help: "Private key file that signs the sequences instead of the root.")
    var signingKey: String?

    @Option(help: "key_id of --signing-key.")
    var signingKeyId: String?

    @Option(help: "Extra public key (file or text) listed in signing_keys, for rotation. Repeatable.")
    var trustKey: [String] = []

    @Option(help: "key_id of each --trust-key, in the same order. Repeatable.")
    var trustKeyId: [String] = []

    @Option(help: "Absolute URL prefix for entry URLs (default: relative URLs).")
    var baseUrl: String?

    @Option(help: "min_sdk_version of every entry.")
    var minSdk: String = "0.0.0"

    @Option(help: "Set expires_at this far ahead: e.g. 30d, 12h, 90m, 3600s.")
    var expiresIn: String?

    @Option(help: "Output directory.")
    var out: String

    @Argument(help: "Sequence files or folders (*.json).")
    var sequences: [String]

    /// Creates the command (ArgumentParser fills in the options).
    public init() {}

    /// Runs the command, prints its output and exits with its status.
    ///
    /// - Throws: `ExitCode` for a non-zero status.
    public func run() async throws {
        let output = Self.execute(
            key: key, keyID: keyId, signingKey: signingKey, signingKeyID: signingKeyId, trustKeys: trustKey,
            trustKeyIDs: trustKeyId, baseURL: baseUrl, minSDK: minSdk, expiresIn: expiresIn, out: out, paths: sequences)
        try output.finish()
    }

    /// Publishes and renders the outcome.
    static func execute(
        key: String, keyID: String = "root", signingKey: String? = nil, signingKeyID: String? = nil, trustKeys: [String] = [],
        trustKeyIDs: [String] = [], baseURL: String? = nil, minSDK: String = "0.0.0", expiresIn: String? = nil,
        out: String, paths: [String], now: Int64 = SystemClock().now()
    ) -> CommandOutput {
        var warnings = ""
        func unusable(_ message: String) -> CommandOutput {
            CommandOutput(standardError: warnings + "error: \(message)\n", exitCode: 2)
        }
        let options: ManifestPublisher.Options
        var inputs: [ManifestPublisher.Input] = []
        let manifestPath = URL(fileURLWithPath: out).appendingPathComponent("manifest.json").path
        var previous: [UInt8]?
        do {
            let root = try KeyFiles.readPrivateKey(key)
            if let w = root.warning { warnings += w }
            var signer: Ed25519PrivateKey?
            if let signingKey {
                let s = try KeyFiles.readPrivateKey(signingKey)
                if let w = s.warning { warnings += w }
                signer = s.key
            }
            guard trustKeys.count == trustKeyIDs.count else {
                return unusable("give one --trust-key-id per --trust-key (\(trustKeys.count) keys, \(trustKeyIDs.count) ids)")
            }
            var trusted: [(keyID: String, publicKey: Ed25519PublicKey)] = []
            for (path, id) in zip(trustKeys, trustKeyIDs) {
                trusted.append((id, try KeyFiles.readPublicKey(path, option: "--trust-key")))
            }
            var expires: Int64?
            if let expiresIn {
                guard let ms = Self.duration(expiresIn) else {
                    return unusable("--expires-in '\(expiresIn)' is not a duration like 30d, 12h, 90m or 3600s")
                }
                expires = ms
            }
            if let baseURL, baseURL.lowercased().hasPrefix("http://"),
                ["localhost", "127.0.0.1"].contains(URL(string: baseURL)?.host?.lowercased() ?? "")
            {
                warnings += "warning: --base-url is plain http: only devices configured with allowInsecureLocalhost accept its entries\n"
            }
            options = ManifestPublisher.Options(
                rootKey: root.key, rootKeyID: keyID, signingKey: signer, signingKeyID: signingKeyID, trustedKeys: trusted,
                baseURL: baseURL, minSDKVersion: minSDK, expiresInMilliseconds: expires, now: now)
            let (files, missing) = InputFiles.expand(paths)
            if let first = missing.first { return unusable("\(first.path): \(first.reason)") }
            if files.isEmpty { return unusable("no sequence files given") }
            for path in files { inputs.append(ManifestPublisher.Input(label: path, bytes: try InputFiles.read(path))) }
            if FileManager.default.fileExists(atPath: manifestPath) { previous = try InputFiles.read(manifestPath) }
        } catch {
            return unusable(error.message)
        }
        let output: ManifestPublisher.Output
        do {
            output = try ManifestPublisher.publish(sequences: inputs, previousManifest: previous, options: options)
        } catch {
            if error.code == .sequenceInvalid {
                let lines = (error.context["problems"]?.arrayValue ?? []).compactMap(\.stringValue)
                return CommandOutput(
                    standardOutput: lines.map { "  \($0)\n" }.joined(),
                    standardError: warnings + "error: invalid sequences; nothing was published\n", exitCode: 1)
            }
            return unusable(error.message)
        }
        do {
            let directory = URL(fileURLWithPath: out, isDirectory: true)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("sequences"), withIntermediateDirectories: true)
            for artifact in output.artifacts {
                let path = directory.appendingPathComponent(artifact.path).path
                if FileManager.default.contents(atPath: path).map({ [UInt8]($0) }) == artifact.bytes { continue }
                try KeyFiles.writeAtomically(artifact.bytes, to: path, mode: 0o644)
            }
            try KeyFiles.writeAtomically(output.manifestFile, to: manifestPath, mode: 0o644)
        } catch let error as InputError {
            return unusable(error.message)
        } catch {
            return unusable("cannot write to \(out)")
        }
        var text = "published \(output.entries.count) sequence\(output.entries.count == 1 ? "" : "s") to \(out) "
            + "(manifest_version \(output.manifestVersion))\n"
        for entry in output.entries {
            text += "  \(entry.name) v\(entry.version) sha256 \(entry.sha256) signed by \(entry.signingKeyID)\n"
        }
        for removal in output.removed { text += "  removed \(removal.name) (since \(removal.removedAtText))\n" }
        return CommandOutput(standardOutput: text, standardError: warnings)
    }

    /// Milliseconds of `30d`, `12h`, `90m` or `3600s`.
    static func duration(_ text: String) -> Int64? {
        guard let unit = text.last, let value = Int64(text.dropLast()), value > 0 else { return nil }
        let factor: Int64
        switch unit {
        case "d": factor = 86_400_000
        case "h": factor = 3_600_000
        case "m": factor = 60_000
        case "s": factor = 1000
        default: return nil
        }
        let (ms, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? nil : ms
    }
}
