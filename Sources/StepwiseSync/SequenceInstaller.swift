public import StepwiseExecution

/// What manifest sync needs from the engine: stored versions, installation, retirement,
/// eviction, and a persisted sync state.
///
/// The engine conforms to it; tests use an in-memory implementation. Every method is one
/// transaction of its own.
///
/// ```swift
/// let synchronizer = ManifestSynchronizer(installer: engine, configuration: configuration)
/// let result = try await synchronizer.sync(manifestURL: url, tokenProvider: nil)
/// ```
public protocol SequenceInstaller: Sendable {
    /// Names of the handlers registered now (E3, E12).
    func registeredHandlerNames() async -> Set<String>

    /// Every stored sequence version (all origins, retired ones included) with its metadata.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    func storedSequences() async throws(StepwiseError) -> [StoredSequence]

    /// Stores a verified sequence with origin `manifest` (E14).
    ///
    /// Validates again and checks handlers. Identical bytes for a stored (name, version) are a
    /// no-op that clears its retired flag.
    ///
    /// - Returns: the stored metadata.
    /// - Throws: ``StepwiseError`` `sequenceInvalid`, `unregisteredHandler`, `conflict` (other
    ///   bytes stored for this version), `resourceLimit` (no room), `storage`, `shutdown`.
    func install(_ sequence: VerifiedSequence) async throws(StepwiseError) -> StoredSequence

    /// Retires a stored version (SYNC.md §3.8): no new starts; running instances continue; the
    /// version is deleted at once when no non-terminal instance references it, otherwise as
    /// soon as none does.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`; `notFound` is not thrown (no-op).
    func retire(_ key: SequenceKey) async throws(StepwiseError)

    /// Whether any non-terminal instance is pinned to this version.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    func isReferenced(_ key: SequenceKey) async throws(StepwiseError) -> Bool

    /// Deletes an unreferenced stored version to make room (SEMANTICS §2.16). Never called for
    /// a referenced version.
    ///
    /// - Throws: ``StepwiseError`` `invalidState` if it is referenced after all, `storage`, `shutdown`.
    func evict(_ key: SequenceKey) async throws(StepwiseError)

    /// The persisted manifest sync state, or `nil` before the first accepted manifest.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    func loadManifestSyncState() async throws(StepwiseError) -> ManifestSyncState?

    /// Persists the manifest sync state atomically (one transaction).
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    func saveManifestSyncState(_ state: ManifestSyncState) async throws(StepwiseError)
}
