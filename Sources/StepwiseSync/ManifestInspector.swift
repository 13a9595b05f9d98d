public import Foundation
public import StepwiseExecution
import StepwiseJSON

/// Runs SYNC.md §3.6–3.7 on a published manifest without installing anything
/// (`stepwise verify-manifest`).
///
/// No stored state and no host app: M7 (replay), E3 (handlers), E4 (stored versions), E13
/// (storage) and the handler part of E12 do not apply; E2 compares with `sdkVersion`. An entry
/// passing every other check is `verified`.
///
/// ```swift
/// let dir = URL(fileURLWithPath: "out", isDirectory: true)
/// let report = try await ManifestInspector.inspect(
///     manifestURL: dir.appendingPathComponent("manifest.json"), rootKeys: roots,
///     fetcher: FileManifestFetcher(root: dir, fallback: URLSessionManifestFetcher()), allowFileURLs: true)
/// ```
public enum ManifestInspector {
    /// Verifies the manifest at `manifestURL` and every entry.
    ///
    /// - Parameters:
    ///   - manifestURL: the manifest (https; `file:` when `allowFileURLs`).
    ///   - rootKeys: the keys that may sign it.
    ///   - fetcher: performs the GETs.
    ///   - allowFileURLs: allow `file:` URLs (a published directory).
    ///   - allowInsecureLocalhost: allow `http://localhost` and `http://127.0.0.1`.
    ///   - sdkVersion: compared with `min_sdk_version`.
    ///   - now: the time for `expires_at`, Unix ms.
    ///   - timeoutMs: bound on each request.
    ///   - maxSequenceSizeBytes: the document size limit.
    /// - Returns: the report: `rejected` with its code for M2–M6 failures, else every entry's outcome.
    /// - Throws: ``SyncError`` for unusable input: `syncNotConfigured` (no key), `invalidInput`
    ///   (URL refused), `network` (no manifest there: 404 and other statuses, or unreachable),
    ///   `unauthorized` (401).
    public static func inspect(
        manifestURL: URL, rootKeys: ManifestRootKeys, fetcher: any ManifestFetcher = URLSessionManifestFetcher(),
        allowFileURLs: Bool = false, allowInsecureLocalhost: Bool = false, sdkVersion: String = StepwiseVersion.current,
        now: Int64 = SystemClock().now(), timeoutMs: UInt64 = 10_000, maxSequenceSizeBytes: UInt64 = 1_048_576,
        sleep: @escaping @Sendable (UInt64) async throws -> Void = { try await Task.sleep(nanoseconds: $0 * 1_000_000) }
    ) async throws(SyncError) -> ManifestInspection {
        guard rootKeys.isConfigured else { throw SyncError(.syncNotConfigured, "no root public key given") }
        var policy = TransportPolicy(allowInsecureLocalhost: allowInsecureLocalhost)
        policy.allowsFileURLs = allowFileURLs
        if let reason = policy.refusal(for: manifestURL) { throw SyncError(.invalidInput, "manifest URL refused: \(reason)") }
        var system = SystemRandomNumberGenerator()
        let session = ManifestHTTPSession(
            fetcher: fetcher, policy: policy, timeoutMilliseconds: timeoutMs, sleep: sleep, tokenProvider: nil,
            manifestURL: manifestURL, random: SeededRandom(seed: system.next()))
        let shown = TransportPolicy.redacted(manifestURL)
        let response: HTTPResponse
        do {
            response = try await session.get(manifestURL, maxBytes: ManifestVerifier.defaultMaxManifestBytes)
        } catch {
            switch error {
            case .refused(let message): throw SyncError(.invalidInput, "manifest URL refused: \(message)")
            case .tooLarge:
                return ManifestInspection(
                    status: .rejected, error: .tooLarge,
                    errorMessage: "manifest is larger than \(ManifestVerifier.defaultMaxManifestBytes) bytes")
            case .unreachable(let message): throw SyncError(.network, "fetching the manifest failed: \(message)")
            case .tokenProvider(let message): throw SyncError(.unauthorized, message)
            }
        }
        guard response.isSuccess else {
            if response.statusCode == 401 { throw SyncError(.unauthorized, "\(shown) answered 401", context: ["http_status": 401]) }
            let what = response.statusCode == 404 ? "no manifest at \(shown)" : "\(shown) answered HTTP \(response.statusCode)"
            throw SyncError(.network, what, context: ["http_status": .integer(Int64(response.statusCode))])
        }
        let verified: VerifiedManifest
        do {
            verified = try ManifestVerifier(rootKeys: rootKeys).verify(response.body, now: now)
        } catch {
            guard let reason = error.reason else { throw error }
            return ManifestInspection(status: .rejected, error: reason, errorMessage: error.message)
        }
        var entries: [ManifestInspection.Entry] = []
        for raw in verified.manifest.sequences {
            let identity = ManifestEntry.identity(of: raw)
            do {
                let entry = try ManifestEntry(raw)
                try ManifestEntryVerifier.checkSDKVersion(entry, sdkVersion: sdkVersion)
                _ = try await ManifestEntryVerifier.downloadAndVerify(
                    entry, manifestURL: manifestURL, trustedKeys: verified.trustedKeys, policy: policy, session: session,
                    downloadCap: Int(min(maxSequenceSizeBytes, UInt64(ManifestSyncConfiguration.maxSequenceDownloadBytes))),
                    maxSequenceBytes: Int(clamping: maxSequenceSizeBytes), registeredHandlers: nil)
                entries.append(.init(name: identity.name, version: identity.version, outcome: .verified))
            } catch {
                entries.append(.init(name: identity.name, version: identity.version, outcome: error.outcome, message: error.message))
            }
        }
        return ManifestInspection(
            status: .verified, manifestVersion: verified.manifest.manifestVersion, entries: entries,
            warnings: verified.warnings)
    }
}
