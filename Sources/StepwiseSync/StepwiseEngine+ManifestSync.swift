public import Foundation
public import StepwiseExecution
import StepwiseJSON

extension StepwiseEngine {
    /// The metadata key holding the persisted ``ManifestSyncState``.
    static let manifestSyncStateKey = "manifest_sync.state"

    /// Fetches, verifies and applies the signed manifest at `manifestURL` (SYNC.md §3), then
    /// retries the entries still pending from earlier syncs.
    ///
    /// Only sequences signed by a key the root-signed manifest trusts are installed (origin
    /// `manifest`). New versions become startable; running instances keep their pinned versions;
    /// removed and absent names are retired. Calls on one engine run one at a time. After an
    /// `applied` or `not_modified` sync with `telemetryUrl` set, telemetry is flushed (a failed
    /// flush does not fail the sync; the events stay buffered).
    ///
    /// ```swift
    /// let result = try await engine.sync(manifestURL: URL(string: "https://cdn.example.com/app/manifest.json")!)
    /// for entry in result.entries where entry.outcome != .installed { print(entry.name, entry.outcome) }
    /// ```
    ///
    /// - Parameters:
    ///   - manifestURL: the manifest's URL (https; `http://localhost` with `allowInsecureLocalhost`).
    ///   - tokenProvider: bearer tokens for the manifest's origin; `nil` sends no `Authorization`.
    ///   - fetcher: performs the GETs; the default uses `URLSession`.
    /// - Returns: the status, counts and per-entry outcomes.
    /// - Throws: ``StepwiseError`` `syncNotConfigured` (no root key), `invalidInput` (a URL the
    ///   transport rules refuse), `network`, `unauthorized`, `manifestRejected` (reason in
    ///   `context["reason"]`) — in all these cases nothing is recorded — and `storage`,
    ///   `shutdown`. Entry failures are not thrown: they are outcomes in the result.
    public func sync(
        manifestURL: URL, tokenProvider: (any TokenProvider)? = nil,
        fetcher: any ManifestFetcher = URLSessionManifestFetcher()
    ) async throws(StepwiseError) -> SyncResult {
        try checkOpen()
        let synchronizer: ManifestSynchronizer
        do {
            synchronizer = try engineSynchronizer()
        } catch {
            throw error.stepwiseError
        }
        let result: SyncResult
        do {
            result = try await synchronizer.sync(manifestURL: manifestURL, tokenProvider: tokenProvider, fetcher: fetcher)
        } catch {
            throw error.stepwiseError
        }
        if result.status == .applied {
            try? recordManifestApplied([
                "manifest_version": result.manifestVersion.map { .integer($0) } ?? .null,
                "added": .integer(Int64(result.added)), "updated": .integer(Int64(result.updated)),
                "removed": .integer(Int64(result.removed)), "skipped": .integer(Int64(result.skipped)),
                "signature_failures": .integer(Int64(result.signatureFailures)),
            ])
        }
        if result.status != .stale, !configuration.telemetryUrl.isEmpty {
            _ = try? await flushTelemetry()
        }
        return result
    }

    /// The engine's synchronizer (created on first use), so concurrent syncs run one at a time.
    private func engineSynchronizer() throws(SyncError) -> ManifestSynchronizer {
        if let existing = manifestSynchronizer as? ManifestSynchronizer { return existing }
        let synchronizer = ManifestSynchronizer(
            installer: EngineSequenceInstaller(engine: self),
            configuration: try ManifestSyncConfiguration(engineConfiguration: configuration), clock: engineClock)
        setManifestSynchronizer(synchronizer)
        return synchronizer
    }
}

/// The engine as a ``SequenceInstaller``: every call is one engine transaction.
struct EngineSequenceInstaller: SequenceInstaller {
    let engine: StepwiseEngine

    func registeredHandlerNames() async -> Set<String> { await engine.registeredHandlerNames }

    func storedSequences() async throws(StepwiseError) -> [StoredSequence] {
        try await engine.checkOpen()
        return await engine.catalogVersions()
    }

    func install(_ sequence: VerifiedSequence) async throws(StepwiseError) -> StoredSequence {
        try await engine.installVersion(
            bytes: sequence.bytes, compiled: sequence.sequence, sha256: sequence.sha256, origin: "manifest")
    }

    func retire(_ key: SequenceKey) async throws(StepwiseError) { try await engine.retireVersion(key) }

    func isReferenced(_ key: SequenceKey) async throws(StepwiseError) -> Bool {
        await engine.isPinnedByLiveInstance(key)
    }

    func evict(_ key: SequenceKey) async throws(StepwiseError) { try await engine.evictVersion(key) }

    func loadManifestSyncState() async throws(StepwiseError) -> ManifestSyncState? {
        guard let text = try await engine.storedValue(StepwiseEngine.manifestSyncStateKey) else { return nil }
        do { return try ManifestSyncState(encoded: Array(text.utf8)) } catch { throw error.stepwiseError }
    }

    func saveManifestSyncState(_ state: ManifestSyncState) async throws(StepwiseError) {
        try await engine.storeValues([(StepwiseEngine.manifestSyncStateKey, String(decoding: state.encoded(), as: UTF8.self))])
    }
}
