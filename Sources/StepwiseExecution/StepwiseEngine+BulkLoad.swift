import StepwiseCrypto
import StepwiseJSON
import StepwiseSequences

extension StepwiseEngine {
    /// Loads an array of sequence documents all-or-nothing: every element is validated first
    /// (problem pointers point into the array, `/2/blocks/0`), then all new versions are stored
    /// in one transaction.
    ///
    /// - Returns: the number of versions newly stored (identical reloads are no-ops).
    /// - Throws: ``StepwiseError`` `invalidInput` (not an array), `sequenceInvalid`,
    ///   `unregisteredHandler`, `conflict`, `resourceLimit`, `storage`, `shutdown`. Nothing is
    ///   stored when it throws.
    public func loadSequences(jsonArray bytes: [UInt8]) throws(StepwiseError) -> Int {
        try checkOpen()
        let limits = SequenceLimits(maxDocumentBytes: Int(clamping: configuration.maxSequenceSizeBytes))
        // Each element is stored with its own bytes as written, as a document loaded alone is
        // (SEMANTICS §1.3): loading it again alone is then a no-op, and its SHA-256 is the file's.
        guard let elements = SequenceLoader.loadBundle(bytes, limits: limits) else {
            let document: JSONValue
            do {
                document = try JSONParser.parse(bytes, limits: .init(maxDepth: limits.maxJSONDepth + 1))
            } catch {
                throw StepwiseError(.invalidInput, "the sequences are not valid JSON: \(error)")
            }
            throw StepwiseError(.invalidInput, "expected a JSON array of sequences, got \(document.typeName)")
        }
        var problems: [Problem] = []
        var compiled: [(CompiledSequence, [UInt8])] = []
        for element in elements {
            problems += element.result.problems
            if let sequence = element.result.sequence { compiled.append((sequence, element.bytes)) }
        }
        if !problems.isEmpty {
            throw StepwiseError(
                .sequenceInvalid, SequenceInvalidError(problems: problems).description,
                context: ["problems": .array(problems.map(\.jsonValue))])
        }
        let missing = Set(compiled.flatMap { $0.0.handlerNames }).filter { handlers[$0] == nil }.sorted()
        if !missing.isEmpty {
            throw StepwiseError(
                .unregisteredHandler, "the sequences use unregistered handlers: \(missing.joined(separator: ", "))",
                context: ["handlers": .array(missing.map(JSONValue.string))])
        }
        var batch = StoreBatch()
        var fresh: [(SequenceKey, StoredSequence, CompiledSequence)] = []
        // Retired versions kept only for finished instances' history are in the store, not the catalog.
        var hidden: [SequenceKey: StoredSequence] = [:]
        for stored in try store.storedSequences() where sequences[stored.key] == nil { hidden[stored.key] = stored }
        for (sequence, bytes) in compiled {
            let key = SequenceKey(name: sequence.name, version: sequence.version)
            let digest = SHA256.hexDigest(of: bytes)
            if let existing = sequences[key] ?? fresh.first(where: { $0.0 == key })?.1 {
                if existing.sha256 == digest && !existing.isRetired { continue }
                if existing.sha256 != digest {
                    throw StepwiseError(.conflict, "sequence \(key) is already stored with different content")
                }
            }
            if let old = hidden[key], old.sha256 != digest {
                throw StepwiseError(.conflict, "sequence \(key) is already stored with different content")
            }
            var stored = sequences[key] ?? hidden[key] ?? StoredSequence(
                key: key, isDeprecated: sequence.isDeprecated, origin: "local", sha256: digest, installedAt: clock.now())
            stored.isRetired = false
            batch.sequences.append((stored, bytes))
            fresh.append((key, stored, sequence))
        }
        guard !fresh.isEmpty else { return 0 }
        // Room is made as for one version (§2.16): unreferenced superseded or retired versions
        // are evicted, oldest first; `resourceLimit` when not enough can be.
        let added = fresh.filter { sequences[$0.0] == nil }.map(\.1)
        if !added.isEmpty {
            batch.deletedSequences = try evictions(making: added)
            try applyCatalogRemovals(&batch)
        }
        try store.commit(batch)
        finishCatalogRemovals(batch)
        for (key, stored, sequence) in fresh {
            sequences[key] = stored
            removedNames.remove(key.name)
            if programs[key] == nil { programs[key] = SequenceProgram(sequence) }
        }
        return fresh.count
    }
}
