public import ArgumentParser
import Foundation
import StepwiseExecution
import StepwiseJSON
import StepwiseSync

/// `stepwise verify-manifest (DIR | URL) --root-key KEY [--json]`: checks a published manifest
/// and every entry without installing anything (SYNC.md §3.11).
///
/// Exit status: 0 the manifest and every entry verified; 1 the manifest or an entry was
/// rejected or skipped; 2 unusable input (bad arguments or key, no manifest at DIR or URL).
public struct VerifyManifestCommand: AsyncParsableCommand {
    /// Name, abstract and help text.
    public static let configuration = CommandConfiguration(
        commandName: "verify-manifest",
        abstract: "Verify a signed manifest and every sequence it lists, without installing anything.",
        discussion: """
            DIR stands for the manifest URL DIR/manifest.json (relative entry URLs resolve inside DIR). Runs the \
            device's checks (SYNC.md §3.6-3.7) except replay, handlers, stored versions and storage. Entry outcomes \
            use the sync outcome names; an entry passing every check is "verified". Exit status: 0 all verified, \
            1 manifest or entry rejected or skipped, 2 unusable input.
            """
    )

    @Argument(help: "A published directory, or the manifest's https URL.")
    var location: String

    @Option(help: "The root public key (base64, 64 hex digits or base64 SPKI), or a file holding it.")
    var rootKey: String

    @Flag(help: "Print a JSON report.")
    var json = false

    @Flag(help: "Allow http://localhost and http://127.0.0.1 URLs.")
    var allowInsecureLocalhost = false

    /// Creates the command (ArgumentParser fills in the options).
    public init() {}

    /// Runs the command, prints its output and exits with its status.
    ///
    /// - Throws: `ExitCode` for a non-zero status.
    public func run() async throws {
        let output = await Self.execute(
            location: location, rootKey: rootKey, json: json, allowInsecureLocalhost: allowInsecureLocalhost)
        try output.finish()
    }

    /// Verifies and renders the report.
    static func execute(
        location: String, rootKey: String, json: Bool, allowInsecureLocalhost: Bool = false,
        now: Int64 = SystemClock().now(), fetcher: (any ManifestFetcher)? = nil
    ) async -> CommandOutput {
        func unusable(_ message: String) -> CommandOutput {
            CommandOutput(standardError: "error: \(message)\n", exitCode: 2)
        }
        let key: ManifestRootKeys
        do { key = ManifestRootKeys([try KeyFiles.readPublicKey(rootKey, option: "--root-key")]) } catch {
            return unusable(error.message)
        }
        let manifestURL: URL
        let actualFetcher: any ManifestFetcher
        let isDirectory: Bool
        let lowered = location.lowercased()
        if lowered.hasPrefix("https://") || lowered.hasPrefix("http://") {
            guard let url = URL(string: location), url.host != nil else { return unusable("\(location) is not a URL") }
            manifestURL = url
            actualFetcher = fetcher ?? URLSessionManifestFetcher()
            isDirectory = false
        } else {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: location, isDirectory: &isDir) else {
                return unusable("\(location): no such directory")
            }
            let root = isDir.boolValue
                ? URL(fileURLWithPath: location, isDirectory: true) : URL(fileURLWithPath: location).deletingLastPathComponent()
            manifestURL = isDir.boolValue ? root.appendingPathComponent("manifest.json") : URL(fileURLWithPath: location)
            guard FileManager.default.fileExists(atPath: manifestURL.path) else {
                return unusable("no manifest at \(location) (expected \(manifestURL.path))")
            }
            actualFetcher = fetcher ?? FileManifestFetcher(root: root, fallback: URLSessionManifestFetcher())
            isDirectory = true
        }
        var report: ManifestInspection
        do {
            report = try await ManifestInspector.inspect(
                manifestURL: manifestURL, rootKeys: key, fetcher: actualFetcher, allowFileURLs: isDirectory,
                allowInsecureLocalhost: allowInsecureLocalhost, now: now)
        } catch where (error.code == .network && error.context["http_status"] != 404) || error.code == .unauthorized
            || error.code == .timeout
        {
            // The manifest could not be fetched (§3.6 M2): a rejection with its code, exit 1,
            // reported like any other in --json. Unusable input (a bad URL or key, no manifest
            // at the URL: a 404, as "no manifest at DIR") stays 2.
            report = ManifestInspection(
                status: .rejected, error: ManifestRejectionReason(rawValue: error.code.rawValue), errorMessage: error.message)
        } catch {
            return unusable(error.message)
        }
        let exitCode: Int32 = report.isFullyVerified ? 0 : 1
        if json {
            return CommandOutput(
                standardOutput: JSONWriter.string(report.jsonValue, options: .prettyPrinted) + "\n", exitCode: exitCode)
        }
        var text: String
        switch report.status {
        case .rejected:
            text = "manifest: rejected (\(report.error?.rawValue ?? "unknown")): \(report.errorMessage ?? "")\n"
        case .verified:
            text = "manifest: verified (manifest_version \(report.manifestVersion.map(String.init) ?? "?"))\n"
            for entry in report.entries {
                let version = entry.version.map { " v\($0)" } ?? ""
                text += "  \(entry.name.isEmpty ? "<unnamed>" : entry.name)\(version): \(entry.outcome)"
                text += entry.message.map { " (\($0))" } ?? ""
                text += "\n"
            }
            if report.entries.isEmpty { text += "  (no entries)\n" }
        }
        for warning in report.warnings { text += "warning: \(warning)\n" }
        return CommandOutput(standardOutput: text, exitCode: exitCode)
    }
}
