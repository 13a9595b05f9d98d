public import Foundation
import StepwiseCrypto
public import StepwiseExecution
import StepwiseJSON

/// Drives signed-manifest sync (SYNC.md §3): fetch → verify → apply against a
/// ``SequenceInstaller``.
///
/// One ``sync(manifestURL:tokenProvider:)`` runs at a time; concurrent calls wait their turn.
/// Manifest-level failures (M1–M6) throw and change nothing; entry failures are data in the
/// ``SyncResult`` and retryable ones run again on the next sync, including after a 304.
///
/// ```swift
/// let synchronizer = ManifestSynchronizer(
///     installer: engine, configuration: try ManifestSyncConfiguration(engineConfiguration: engine.configuration))
/// let result = try await synchronizer.sync(manifestURL: URL(string: "https://cdn.example.com/app/manifest.json")!)
/// print(result.status, result.added, result.signatureFailures)
/// ```
public actor ManifestSynchronizer {
    /// Where verified sequences go.
    public let installer: any SequenceInstaller
    /// Keys, limits and transport settings.
    public let configuration: ManifestSyncConfiguration
    private let fetcher: any ManifestFetcher
    private let clock: any EngineClock
    private let sleep: @Sendable (UInt64) async throws -> Void
    private var random: SeededRandom
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Creates a synchronizer.
    ///
    /// - Parameters:
    ///   - installer: the engine (or an in-memory stand-in).
    ///   - configuration: root keys, SDK version, limits.
    ///   - fetcher: performs the GETs (``URLSessionManifestFetcher`` by default).
    ///   - clock: `now` for `expires_at`, and retry delays.
    ///   - randomSeed: seeds the retry jitter; `nil` draws one.
    ///   - sleep: waits between retries, in milliseconds; `nil` sleeps on `clock`.
    public init(
        installer: any SequenceInstaller, configuration: ManifestSyncConfiguration,
        fetcher: any ManifestFetcher = URLSessionManifestFetcher(), clock: any EngineClock = SystemClock(),
        randomSeed: UInt64? = nil, sleep: (@Sendable (UInt64) async throws -> Void)? = nil
    ) {
        self.installer = installer
        self.configuration = configuration
        self.fetcher = fetcher
        self.clock = clock
        var system = SystemRandomNumberGenerator()
        self.random = SeededRandom(seed: randomSeed ?? system.next())
        self.sleep = sleep ?? { [clock] ms in try await clock.sleep(until: clock.now() + Int64(clamping: ms)) }
    }

    /// Fetches, verifies and applies the manifest at `manifestURL`, then retries pending entries.
    ///
    /// - Parameters:
    ///   - manifestURL: the manifest's URL (https, or localhost with `allowInsecureLocalhost`).
    ///   - tokenProvider: bearer tokens for the manifest's origin; `nil` sends no `Authorization`.
    /// - Returns: the status, counts and per-entry outcomes.
    /// - Throws: ``SyncError`` `syncNotConfigured` (no root key), `invalidInput` (the URL breaks
    ///   the transport rules), `network` (with `http_status` when a response came; 3xx
    ///   included), `unauthorized` (401 after one refresh, or the token provider failed),
    ///   `manifestRejected` (`too_large`, `manifest_malformed`, `manifest_signature_invalid`,
    ///   `manifest_expired`) — in all these cases nothing is recorded — and `storage` /
    ///   `shutdown` from the installer (installed entries stay installed, the rest pending).
    public func sync(manifestURL: URL, tokenProvider: (any TokenProvider)? = nil) async throws(SyncError) -> SyncResult {
        try await sync(manifestURL: manifestURL, tokenProvider: tokenProvider, fetcher: fetcher)
    }

    /// ``sync(manifestURL:tokenProvider:)`` with the GETs of this call made by `fetcher`.
    ///
    /// - Throws: as ``sync(manifestURL:tokenProvider:)``.
    public func sync(
        manifestURL: URL, tokenProvider: (any TokenProvider)?, fetcher: any ManifestFetcher
    ) async throws(SyncError) -> SyncResult {
        await acquire()
        defer { release() }
        return try await performSync(manifestURL: manifestURL, tokenProvider: tokenProvider, fetcher: fetcher)
    }

    // MARK: Serialisation

    private func acquire() async {
        if !busy {
            busy = true
            return
        }
        // Checked again inside the body: entering `withCheckedContinuation` can hop executors,
        // and a release run in that gap would leave this waiter queued for ever.
        await withCheckedContinuation { continuation in
            if busy {
                waiters.append(continuation)
            } else {
                busy = true
                continuation.resume()
            }
        }
    }

    private func release() {
        if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
    }

    // MARK: Manifest

    private func performSync(
        manifestURL: URL, tokenProvider: (any TokenProvider)?, fetcher: any ManifestFetcher
    ) async throws(SyncError) -> SyncResult {
        guard configuration.rootKeys.isConfigured else {
            throw SyncError(.syncNotConfigured, "no root public key is configured (rootPublicKey is empty)")
        }
        let policy = TransportPolicy(allowInsecureLocalhost: configuration.allowInsecureLocalhost)
        if let reason = policy.refusal(for: manifestURL) {
            throw SyncError(.invalidInput, "manifest URL refused: \(reason)")
        }
        let state = try await storage { () async throws(StepwiseError) in try await installer.loadManifestSyncState() }
            ?? ManifestSyncState()
        let session = ManifestHTTPSession(
            fetcher: fetcher, policy: policy, timeoutMilliseconds: configuration.operationTimeoutMs, sleep: sleep,
            tokenProvider: tokenProvider, manifestURL: manifestURL, random: SeededRandom(seed: random.next()))
        let urlText = manifestURL.absoluteString
        var headers: [String: String] = [:]
        if let etag = state.etag, state.manifestURL == urlText, state.lastAppliedVersion != nil {
            headers["if-none-match"] = etag
        }
        let shown = TransportPolicy.redacted(manifestURL)
        let response: HTTPResponse
        do {
            response = try await session.get(manifestURL, maxBytes: configuration.maxManifestBytes, headers: headers)
        } catch {
            switch error {
            case .refused(let message): throw SyncError(.invalidInput, "manifest URL refused: \(message)")
            case .tooLarge: throw .manifestRejected(.tooLarge, "manifest is larger than \(configuration.maxManifestBytes) bytes")
            case .unreachable(let message): throw SyncError(.network, "fetching the manifest failed: \(message)")
            case .tokenProvider(let message): throw SyncError(.unauthorized, message)
            }
        }
        switch response.statusCode {
        case 304 where headers["if-none-match"] != nil:
            return try await retryPending(status: .notModified, state: state, session: session, policy: policy, warnings: [])
        case 200...299:
            break
        case 401:
            throw SyncError(.unauthorized, "\(shown) answered 401", context: ["http_status": 401])
        case 300...399:
            throw SyncError(
                .network, "\(shown) answered \(response.statusCode); redirects are not followed",
                context: ["http_status": .integer(Int64(response.statusCode))])
        default:
            throw SyncError(
                .network, "\(shown) answered HTTP \(response.statusCode)",
                context: ["http_status": .integer(Int64(response.statusCode))])
        }
        let verifier = ManifestVerifier(rootKeys: configuration.rootKeys, maxManifestBytes: configuration.maxManifestBytes)
        let verified = try verifier.verify(response.body, now: clock.now())
        switch ManifestVerifier.replayDecision(
            for: verified, lastAppliedVersion: state.lastAppliedVersion, lastAppliedBody: state.manifestBody)
        {
        case .accept:
            return try await apply(verified, etag: response.header("etag"), manifestURL: urlText, session: session, policy: policy)
        case .notModified:
            var current = state
            if let etag = response.header("etag"), state.manifestURL == urlText, etag != state.etag {
                current.etag = etag
                try await save(current)
            }
            return try await retryPending(
                status: .notModified, state: current, session: session, policy: policy, warnings: verified.warnings)
        case .stale:
            let applied = state.lastAppliedVersion.map(String.init) ?? "none"
            let warning =
                verified.manifest.manifestVersion < (state.lastAppliedVersion ?? .min)
                ? "manifest_version \(verified.manifest.manifestVersion) is older than the applied \(applied); not applied"
                : "manifest_version \(verified.manifest.manifestVersion) equals the applied one but its body differs; not applied"
            return try await retryPending(status: .stale, state: state, session: session, policy: policy, warnings: [warning])
        }
    }

    /// Acceptance (one transaction), retirements, then every entry.
    private func apply(
        _ verified: VerifiedManifest, etag: String?, manifestURL: String, session: ManifestHTTPSession, policy: TransportPolicy
    ) async throws(SyncError) -> SyncResult {
        var state = ManifestSyncState()
        state.lastAppliedVersion = verified.manifest.manifestVersion
        state.manifestURL = manifestURL
        state.etag = etag
        state.manifestSignature = Base64.encode(verified.signature)
        state.manifestBody = verified.body
        state.trustedKeys = verified.trustedKeys
        state.entries = verified.manifest.sequences.enumerated().map { index, raw in
            let identity = ManifestEntry.identity(of: raw)
            return .init(index: index, name: identity.name, version: identity.version, outcome: .pending)
        }
        try await save(state)
        let stored = try await storage { () async throws(StepwiseError) in try await installer.storedSequences() }
        let plan = ManifestSyncPlan(accepting: verified.manifest, stored: stored)
        for key in plan.retirements {
            try await storage { () async throws(StepwiseError) in try await installer.retire(key) }
        }
        let entries = try await process(
            plan.entryIndices, manifest: verified.manifest, state: &state, session: session, policy: policy)
        return SyncResult(
            status: .applied, manifestVersion: verified.manifest.manifestVersion, removed: plan.retirements.count,
            entries: entries, warnings: verified.warnings)
    }

    /// §3.8 retries: the stored manifest's retryable entries, once each.
    private func retryPending(
        status: SyncResult.Status, state: ManifestSyncState, session: ManifestHTTPSession, policy: TransportPolicy,
        warnings: [String]
    ) async throws(SyncError) -> SyncResult {
        var state = state
        let plan = ManifestSyncPlan(retrying: state)
        guard !plan.entryIndices.isEmpty, let body = state.manifestBody else {
            return SyncResult(status: status, manifestVersion: state.lastAppliedVersion, removed: 0, entries: [], warnings: warnings)
        }
        let manifest: Manifest
        do { manifest = try Manifest(body: body) } catch {
            throw SyncError(.storage, "the stored manifest no longer parses: \(error.message)")
        }
        let entries = try await process(plan.entryIndices, manifest: manifest, state: &state, session: session, policy: policy)
        return SyncResult(
            status: status, manifestVersion: state.lastAppliedVersion, removed: 0, entries: entries, warnings: warnings)
    }

    // MARK: Entries

    /// Runs the entries at `indices` and records their outcomes in `state` (saved at the end,
    /// and before a storage error is rethrown).
    private func process(
        _ indices: [Int], manifest: Manifest, state: inout ManifestSyncState, session: ManifestHTTPSession,
        policy: TransportPolicy
    ) async throws(SyncError) -> [SyncResult.Entry] {
        guard let urlText = state.manifestURL, let manifestURL = URL(string: urlText) else {
            throw SyncError(.storage, "the stored manifest sync state has no manifest URL")
        }
        let handlers = await installer.registeredHandlerNames()
        var results: [SyncResult.Entry] = []
        for index in indices where manifest.sequences.indices.contains(index) {
            let raw = manifest.sequences[index]
            let identity = ManifestEntry.identity(of: raw)
            let result: (outcome: EntryOutcome, message: String?)
            do {
                result = try await processEntry(
                    raw, manifestURL: manifestURL, trustedKeys: state.trustedKeys, handlers: handlers, session: session,
                    policy: policy)
            } catch {
                try? await save(state)
                throw error
            }
            let outcome = result.outcome
            let record = ManifestSyncState.Entry(
                index: index, name: identity.name, version: identity.version, outcome: outcome, message: result.message)
            if let i = state.entries.firstIndex(where: { $0.index == index }) {
                state.entries[i] = record
            } else {
                state.entries.append(record)
            }
            results.append(
                SyncResult.Entry(
                    name: identity.name, version: identity.version, outcome: outcome, message: result.message,
                    retryPending: outcome.isRetryable))
        }
        try await save(state)
        return results
    }

    /// E1–E14 for one entry.
    ///
    /// - Returns: the outcome, with a message for failures.
    /// - Throws: ``SyncError`` only for installer failures other than the mapped ones (`storage`, `shutdown`).
    private func processEntry(
        _ raw: JSONValue, manifestURL: URL, trustedKeys: [VerifiedManifest.TrustedKey], handlers: Set<String>,
        session: ManifestHTTPSession, policy: TransportPolicy
    ) async throws(SyncError) -> (outcome: EntryOutcome, message: String?) {
        let entry: ManifestEntry
        do { entry = try ManifestEntry(raw) } catch { return (error.outcome, error.message) }
        do {
            try ManifestEntryVerifier.checkSDKVersion(entry, sdkVersion: configuration.sdkVersion)
            try ManifestEntryVerifier.checkRequiredHandlers(entry, registered: handlers)
        } catch {
            return (error.outcome, error.message)
        }
        let stored = try await storage { () async throws(StepwiseError) in try await installer.storedSequences() }
        let verified: VerifiedSequence
        do {
            try ManifestEntryVerifier.checkStoredVersions(entry, stored: stored)
            verified = try await ManifestEntryVerifier.downloadAndVerify(
                entry, manifestURL: manifestURL, trustedKeys: trustedKeys, policy: policy, session: session,
                downloadCap: configuration.sequenceDownloadCap,
                maxSequenceBytes: Int(clamping: configuration.maxSequenceSizeBytes), registeredHandlers: handlers)
        } catch {
            return (error.outcome, error.message)
        }
        let key = SequenceKey(name: entry.name, version: entry.version)
        if !stored.contains(where: { $0.key == key }) {
            if let failure = try await makeRoom(stored: stored) { return (failure.outcome, failure.message) }
        }
        let hadName = stored.contains { $0.key.hasName(entry.name) && $0.key != key && !$0.isRetired }
        do {
            _ = try await installer.install(verified)
        } catch {
            switch error.code {
            case .sequenceInvalid: return (.invalidSequence, error.message)
            case .unregisteredHandler: return (.skippedMissingHandlers, error.message)
            case .conflict: return (.versionConflict, error.message)
            case .resourceLimit: return (.storageLimit, error.message)
            default: throw SyncError(error.code, error.message, context: error.context)
            }
        }
        return (hadName ? .updated : .installed, nil)
    }

    /// E13: evicts unreferenced superseded or retired versions, oldest first, until one more fits.
    private func makeRoom(stored: [StoredSequence]) async throws(SyncError) -> EntryFailure? {
        let limit = Int(configuration.maxStoredSequences)
        guard limit > 0, stored.count + 1 > limit else { return nil }
        var referenced: Set<SequenceKey> = []
        for candidate in ManifestSyncPlan.evictionCandidates(stored: stored) {
            if try await storage({ () async throws(StepwiseError) in try await installer.isReferenced(candidate) }) {
                referenced.insert(candidate)
            }
        }
        guard let evictions = ManifestSyncPlan.evictions(stored: stored, referenced: referenced, limit: limit) else {
            return EntryFailure(
                .storageLimit, "maxStoredSequences (\(limit)) reached and no unreferenced superseded or retired version can be evicted")
        }
        for key in evictions {
            try await storage { () async throws(StepwiseError) in try await installer.evict(key) }
        }
        return nil
    }

    // MARK: Storage

    private func save(_ state: ManifestSyncState) async throws(SyncError) {
        try await storage { () async throws(StepwiseError) in try await installer.saveManifestSyncState(state) }
    }

    /// Runs an installer call, turning its ``StepwiseError`` into a ``SyncError`` with the same code.
    private func storage<T>(_ body: () async throws(StepwiseError) -> T) async throws(SyncError) -> T {
        do { return try await body() } catch { throw SyncError(error.code, error.message, context: error.context) }
    }
}
