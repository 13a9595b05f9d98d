import StepwiseCrypto
import StepwiseJSON
package import StepwiseSequences

/// The engine's side of signed-manifest sync (SYNC.md §3.7 E14, §3.8): installing verified
/// versions, retiring and evicting them, and the persisted sync state.
///
/// A version leaves the catalog (``loadedSequences()``, `start`, `sub_sequence`, the
/// `maxStoredSequences` count) as soon as it is retired or evicted and no non-terminal instance
/// runs it. Its row stays in the database, marked retired, while finished instances that ran it
/// are kept (their history and snapshots need the definition, and the row is their foreign key);
/// GC deletes it with the last of them.
extension StepwiseEngine {
    /// The engine's clock, for components of other modules that must share its time.
    package nonisolated var engineClock: any EngineClock { clock }

    /// Stores the manifest synchronizer the sync module creates on first use.
    package func setManifestSynchronizer(_ synchronizer: any Sendable) { manifestSynchronizer = synchronizer }

    /// Every version in the catalog, retired ones that running instances still pin included.
    package func catalogVersions() -> [StoredSequence] {
        sequences.values.sorted { $0.key < $1.key }
    }

    /// Stores a verified document with its origin (SYNC.md §3.7 E14).
    ///
    /// Identical bytes for a stored version (even one retired or kept only for history) bring it
    /// back un-retired; other bytes are a `conflict`.
    ///
    /// - Returns: the stored metadata.
    /// - Throws: ``StepwiseError`` `unregisteredHandler`, `conflict`, `resourceLimit` (no room),
    ///   `storage`, `shutdown`.
    package func installVersion(
        bytes: [UInt8], compiled: CompiledSequence, sha256: String, origin: String
    ) throws(StepwiseError) -> StoredSequence {
        try checkOpen()
        try checkHandlersRegistered(compiled)
        let key = SequenceKey(name: compiled.name, version: compiled.version)
        // Hidden versions (retired, kept for finished instances) are only in the store.
        var existing = sequences[key]
        if existing == nil { existing = try store.storedSequences().first { $0.key == key } }
        var batch = StoreBatch()
        var stored: StoredSequence
        if var existing {
            guard existing.sha256 == sha256 else {
                throw StepwiseError(
                    .conflict, "sequence \(key) is already stored with different content",
                    context: ["name": .string(key.name), "version": .integer(Int64(key.version))])
            }
            if sequences[key] != nil && !existing.isRetired { return existing }
            existing.isRetired = false
            stored = existing
            if sequences[key] == nil { batch.deletedSequences = try evictions(making: [stored]) }
        } else {
            stored = StoredSequence(
                key: key, isDeprecated: compiled.isDeprecated, origin: origin, sha256: sha256, installedAt: clock.now())
            batch.deletedSequences = try evictions(making: [stored])
        }
        batch.sequences = [(stored, bytes)]
        try applyCatalogRemovals(&batch)
        try store.commit(batch)
        finishCatalogRemovals(batch)
        sequences[key] = stored
        removedNames.remove(key.name)
        if programs[key] == nil { programs[key] = SequenceProgram(compiled) }
        if !loadedWaitingFollowUps().isEmpty {
            retryWaitingFollowUps()
            try? commitPass()
        }
        return stored
    }

    /// Retires a version (SYNC.md §3.8): no new `start`, `sub_sequence` or `start_workflow`;
    /// running instances continue on it; it leaves the catalog once none runs it.
    ///
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`. An unknown version is a no-op.
    package func retireVersion(_ key: SequenceKey) throws(StepwiseError) {
        try checkOpen()
        guard var stored = sequences[key], !stored.isRetired else { return }
        stored.isRetired = true
        var batch = StoreBatch()
        if isPinnedByLiveInstance(key) {
            guard let bytes = try store.sequenceBytes(key) else { return }
            batch.sequences = [(stored, bytes)]
            try store.commit(batch)
            sequences[key] = stored
        } else {
            batch.deletedSequences = [key]
            try applyCatalogRemovals(&batch)
            try store.commit(batch)
            finishCatalogRemovals(batch)
        }
        if !sequences.values.contains(where: { $0.key.hasName(key.name) && !$0.isRetired }) {
            removedNames.insert(key.name)
        }
    }

    /// Whether a non-terminal instance (a child included) runs this version.
    package func isPinnedByLiveInstance(_ key: SequenceKey) -> Bool {
        live.values.contains { $0.record.sequence == key && !$0.record.state.isTerminal }
    }

    /// Removes an unpinned version from the catalog to make room (SEMANTICS §2.16).
    ///
    /// - Throws: ``StepwiseError`` `invalidState` when a non-terminal instance runs it,
    ///   `storage`, `shutdown`. An unknown version is a no-op.
    package func evictVersion(_ key: SequenceKey) throws(StepwiseError) {
        try checkOpen()
        guard sequences[key] != nil else { return }
        guard !isPinnedByLiveInstance(key) else {
            throw StepwiseError(.invalidState, "sequence \(key) is in use by a running instance and cannot be evicted")
        }
        var batch = StoreBatch()
        batch.deletedSequences = [key]
        try applyCatalogRemovals(&batch)
        try store.commit(batch)
        finishCatalogRemovals(batch)
    }

    /// Refuses a sequence that names a handler not registered now.
    ///
    /// - Throws: ``StepwiseError`` `unregisteredHandler` with the names in `context["handlers"]`.
    func checkHandlersRegistered(_ compiled: CompiledSequence) throws(StepwiseError) {
        let missing = compiled.handlerNames.filter { handlers[$0] == nil }
        guard missing.isEmpty else {
            throw StepwiseError(
                .unregisteredHandler,
                "sequence '\(compiled.name)' uses unregistered handlers: \(missing.joined(separator: ", "))",
                context: ["handlers": .array(missing.map(JSONValue.string))])
        }
    }

    // MARK: Catalog removals

    /// Turns `batch.deletedSequences` into what the store can do: a version some instance row
    /// still references (a finished instance kept for history) is written back retired instead of
    /// deleted, and GC deletes it later.
    func applyCatalogRemovals(_ batch: inout StoreBatch) throws(StepwiseError) {
        var deletable: [SequenceKey] = []
        for key in batch.deletedSequences {
            if try store.isReferenced(key) {
                guard var stored = sequences[key], let bytes = try store.sequenceBytes(key) else { continue }
                stored.isRetired = true
                batch.sequences.append((stored, bytes))
            } else {
                deletable.append(key)
            }
        }
        batch.deletedSequences = deletable
    }

    /// Drops the batch's removed versions from the in-memory catalog after its commit.
    func finishCatalogRemovals(_ batch: StoreBatch) {
        for key in batch.deletedSequences {
            sequences[key] = nil
            programs[key] = nil
        }
        for (stored, _) in batch.sequences where stored.isRetired && !isPinnedByLiveInstance(stored.key) {
            sequences[stored.key] = nil
        }
    }

    /// A retired version leaves the catalog once its last non-terminal instance has finished.
    func releaseRetiredVersion(_ key: SequenceKey) {
        if sequences[key]?.isRetired == true && !isPinnedByLiveInstance(key) { sequences[key] = nil }
    }

    /// GC's part: deletes retired versions that no instance row references any more.
    func collectRetiredVersions() {
        guard let stored = try? store.storedSequences() else { return }
        for version in stored where version.isRetired && sequences[version.key] == nil {
            if let referenced = try? store.isReferenced(version.key), !referenced {
                pendingBatch.deletedSequences.append(version.key)
            }
        }
    }

    /// The `notFound` error for a name with no startable version.
    func sequenceNotFound(_ name: String) -> StepwiseError {
        if removedNames.contains(name) {
            return StepwiseError(
                .notFound, "sequence '\(name)' was removed by the publisher", context: ["name": .string(name)])
        }
        return StepwiseError(.notFound, "sequence '\(name)' not found", context: ["name": .string(name)])
    }
}
