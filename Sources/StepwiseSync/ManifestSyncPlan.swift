public import StepwiseExecution

/// What one sync does to stored sequences besides installing: which entries it processes, which
/// versions it retires (SYNC.md §3.8), and which it may evict to make room (SEMANTICS §2.16).
///
/// Pure: computed from the manifest, the stored versions and the sync state.
///
/// ```swift
/// let plan = ManifestSyncPlan(accepting: verified.manifest, stored: try await installer.storedSequences())
/// for key in plan.retirements { try await installer.retire(key) }
/// ```
public struct ManifestSyncPlan: Sendable, Hashable {
    /// Indices into the manifest's `sequences` to process, in order.
    public var entryIndices: [Int]
    /// Versions to retire (not retired yet), ordered by name then version.
    public var retirements: [SequenceKey]

    /// The plan for a newly accepted manifest: every entry, plus `removed` and absence retirements.
    public init(accepting manifest: Manifest, stored: [StoredSequence]) {
        entryIndices = Array(manifest.sequences.indices)
        retirements = Self.retirements(for: manifest, stored: stored)
    }

    /// The plan for a sync that did not accept a manifest: the retryable entries of the stored
    /// one, retiring nothing.
    public init(retrying state: ManifestSyncState) {
        entryIndices = state.pendingEntries.map(\.index)
        retirements = []
    }

    /// Versions an accepted manifest retires.
    ///
    /// - `removed`: for each name not also listed in `sequences`, stored versions of that name
    ///   installed before `removed_at` (any origin).
    /// - absence: names stored with origin `manifest` that the manifest neither lists nor
    ///   removes: their manifest-origin versions. Locally loaded versions are untouched.
    ///
    /// Versions already retired are left out.
    public static func retirements(for manifest: Manifest, stored: [StoredSequence]) -> [SequenceKey] {
        let listed = Set(manifest.sequences.map { ManifestEntry.identity(of: $0).name }.filter { !$0.isEmpty })
        var removedBefore: [String: Int64] = [:]
        for removal in manifest.removed where !listed.contains(removal.name) {
            removedBefore[removal.name] = max(removedBefore[removal.name] ?? .min, removal.removedAt)
        }
        var keys: [SequenceKey] = []
        for s in stored where !s.isRetired && !listed.contains(s.key.name) {
            if let cutoff = removedBefore[s.key.name] {
                if s.installedAt < cutoff { keys.append(s.key) }
            } else if s.origin == "manifest" {
                keys.append(s.key)
            }
        }
        return keys.sorted()
    }

    /// Versions eviction may consider, oldest first: retired ones, and superseded ones (a
    /// higher non-retired version of the same name is stored). Referenced ones must still be
    /// filtered out.
    public static func evictionCandidates(stored: [StoredSequence]) -> [SequenceKey] {
        var highest: [String: Int] = [:]
        for s in stored where !s.isRetired { highest[s.key.name] = max(highest[s.key.name] ?? .min, s.key.version) }
        return stored
            .filter { s in s.isRetired || (highest[s.key.name].map { $0 > s.key.version } ?? false) }
            .sorted { ($0.installedAt, $0.key) < ($1.installedAt, $1.key) }
            .map(\.key)
    }

    /// E13: what to evict so one more version fits under `limit`.
    ///
    /// - Parameters:
    ///   - stored: every stored version.
    ///   - referenced: versions pinned by a non-terminal instance (never evicted).
    ///   - limit: `maxStoredSequences` (0 = unlimited).
    /// - Returns: the versions to evict, oldest first (`[]` when there is room already), or `nil`
    ///   when not enough unreferenced candidates exist (`storage_limit`).
    public static func evictions(stored: [StoredSequence], referenced: Set<SequenceKey>, limit: Int) -> [SequenceKey]? {
        guard limit > 0 else { return [] }
        let excess = stored.count + 1 - limit
        guard excess > 0 else { return [] }
        let candidates = evictionCandidates(stored: stored).filter { !referenced.contains($0) }
        guard candidates.count >= excess else { return nil }
        return Array(candidates.prefix(excess))
    }
}
