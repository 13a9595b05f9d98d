import StepwiseJSON

extension StepwiseEngine {
    /// Dead letters, newest first (SEMANTICS §6.7).
    ///
    /// - Throws: ``StepwiseError`` `invalidInput` (limit, or a cursor naming no dead letter), `storage`, `shutdown`.
    public func deadLetters(
        unacknowledgedOnly: Bool = false, limit: Int = 100, after cursor: String? = nil
    ) throws(StepwiseError) -> Page<DeadLetter> {
        try checkOpen()
        guard (1...500).contains(limit) else { throw StepwiseError(.invalidInput, "limit \(limit) is outside 1…500") }
        // A cursor names the last dead letter of the previous page; one that names none (purged
        // meanwhile, or made up) is refused rather than silently restarting from the first page.
        if let cursor, try store.deadLetter(cursor) == nil {
            throw StepwiseError(.invalidInput, "cursor '\(cursor)' does not name a dead letter", context: ["cursor": .string(cursor)])
        }
        let rows = try store.deadLetters(unacknowledgedOnly: unacknowledgedOnly, limit: limit + 1, after: cursor)
        let items = Array(rows.prefix(limit))
        return Page(items: items, nextCursor: rows.count > limit ? items.last?.id : nil)
    }

    /// Marks a dead letter acknowledged (idempotent).
    ///
    /// - Throws: ``StepwiseError`` `notFound`, `storage`, `shutdown`.
    public func acknowledgeDeadLetter(_ id: String) throws(StepwiseError) {
        try checkOpen()
        guard var letter = try store.deadLetter(id) else {
            throw StepwiseError(.notFound, "dead letter \(id) not found", context: ["dead_letter_id": .string(id)])
        }
        guard !letter.acknowledged else { return }
        letter.acknowledged = true
        letter.acknowledgedAt = clock.now()
        var batch = StoreBatch()
        batch.deadLetters = [letter]
        try store.commit(batch)
    }

    /// Deletes dead letters that failed before `now - olderThanMs` (acknowledged ones only, by
    /// default); their instances then fall to normal GC.
    ///
    /// - Returns: how many were deleted.
    /// - Throws: ``StepwiseError`` `storage`, `shutdown`.
    @discardableResult
    public func purgeDeadLetters(olderThanMs: Int64, acknowledgedOnly: Bool = true) throws(StepwiseError) -> Int {
        try checkOpen()
        let cutoff = clock.now() - olderThanMs
        var doomed: [String] = []
        var cursor: String?
        while true {
            let rows = try store.deadLetters(unacknowledgedOnly: false, limit: 500, after: cursor)
            for row in rows where row.failedAt < cutoff && (!acknowledgedOnly || row.acknowledged) { doomed.append(row.id) }
            guard rows.count == 500 else { break }
            cursor = rows.last?.id
        }
        guard !doomed.isEmpty else { return 0 }
        var batch = StoreBatch()
        batch.deletedDeadLetters = doomed
        try store.commit(batch)
        return doomed.count
    }

    /// Redrives a failed instance from its failed step (SEMANTICS §6.8).
    ///
    /// - Throws: ``StepwiseError`` `notFound` (no such dead letter or its version is gone),
    ///   `invalidState` (the instance is not failed, or its on_failure steps still run),
    ///   `conflict` (its dedup key is held by another live instance), `resourceLimit` (its version, retired or evicted since, needs a place
    ///   under `maxStoredSequences` again and none can be freed), `storage`, `shutdown`.
    public func redrive(deadLetterId: String) throws(StepwiseError) {
        try checkOpen()
        guard let letter = try store.deadLetter(deadLetterId) else {
            throw StepwiseError(.notFound, "dead letter \(deadLetterId) not found", context: ["dead_letter_id": .string(deadLetterId)])
        }
        guard let loaded = try store.loadInstance(letter.instanceId) else {
            throw StepwiseError(.notFound, "instance \(letter.instanceId) not found")
        }
        let (record, nodes) = loaded
        guard record.state == .failed else {
            throw StepwiseError(.invalidState, "instance \(record.id) is \(record.state), not failed")
        }
        // Its on_failure list runs after the failure (§2.11): redriving under it would leave the
        // hooks running inside a live instance.
        guard record.hooks != .running else {
            throw StepwiseError(
                .invalidState, "instance \(record.id) is still running its on_failure steps; redrive it once they finish",
                context: ["instance_id": .string(record.id.rawValue)])
        }
        // Stored is enough: a version retired by a manifest or evicted stays in the store, marked
        // retired, for the finished instances that ran it.
        var hidden: StoredSequence?
        if sequences[record.sequence] == nil {
            guard var stored = try store.storedSequences().first(where: { $0.key == record.sequence }) else {
                throw StepwiseError(.notFound, "sequence \(record.sequence) is no longer stored")
            }
            stored.isRetired = true
            hidden = stored
        }
        if let key = record.dedupKey, let holder = try liveHolder(ofDedupKey: key), holder != record.id {
            throw StepwiseError(
                .conflict, "dedup key '\(key)' is held by instance \(holder)", context: ["instance_id": .string(holder.rawValue)])
        }
        let runtime = try InstanceRuntime(record: record, program: try program(for: record.sequence), nodes: nodes)
        // The instance's other letters (of earlier failures, or a later one when an older
        // letter was chosen) are settled by this redrive too: one left unacknowledged would
        // keep the instance from GC once it completes.
        let others = try store.deadLetters(ofInstance: record.id).filter { $0.id != letter.id && $0.redrivenAt == nil }
        if let hidden {
            // Running again, the instance pins its version back into the catalog (retired: no
            // new starts), where it takes a place under maxStoredSequences like any version.
            pendingBatch.deletedSequences += try evictions(making: [hidden])
            try applyCatalogRemovals(&pendingBatch)
        }
        let removals = pendingBatch
        live[record.id] = runtime
        let now = clock.now()
        try transition(record.id) { $0.redrive() }
        for var settled in [letter] + others {
            settled.redrivenAt = now
            if !settled.acknowledged {
                settled.acknowledged = true
                settled.acknowledgedAt = now
            }
            pendingBatch.deadLetters.append(settled)
        }
        try commitPass()
        if let hidden {
            finishCatalogRemovals(removals)
            sequences[hidden.key] = hidden
        }
        wake()
    }
}
