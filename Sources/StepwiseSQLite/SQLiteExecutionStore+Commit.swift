internal import CSQLite
public import StepwiseExecution
import StepwiseJSON

extension SQLiteExecutionStore {
    /// Change-log records after which a commit folds the log first (bounds the memory the
    /// logged journal holds and the work of the next fold).
    static let maxLogRecords = 1024
    /// Change-log bytes after which a commit folds the log first.
    static let maxLogBytes = 4 << 20

    public func commit(_ batch: StoreBatch) throws(StepwiseError) {
        // Journal sequence numbers are assigned here, so entries still in the change log have
        // theirs and the journal reads them in commit order with the stored ones.
        var journal = batch.journal
        var sequence = nextJournalSequence
        for i in journal.indices {
            journal[i].sequence = sequence
            sequence += 1
        }
        let writes = rowWrites(batch, journal: journal)
        let logs = isLoggable(batch) && logRecords < Self.maxLogRecords && logBytes < Self.maxLogBytes
        var body: [UInt8] = []
        if logs { SQLiteChangeLog.encode(writes.rows + writes.later, into: &body) }
        do {
            try connection.transaction(.immediate) {
                if logs {
                    let s = try connection.cachedStatement("INSERT INTO change_log (body) VALUES (?)")
                    try s.bind(body, at: 1)
                    try s.execute()
                } else {
                    // Logged changes land first, in the same transaction, so the direct writes
                    // (constraints, deletions) see every earlier commit.
                    try foldChangeLog()
                    try write(batch, writes)
                }
            }
        } catch let error as SQLiteError {
            if error.isConstraint {
                throw StepwiseError(.conflict, "the change conflicts with stored data: \(error.message)")
            }
            throw storageError("cannot commit", error)
        } catch let error as StepwiseError {
            throw error
        } catch {
            throw StepwiseError(.storage, "cannot commit: \(error)")
        }
        nextJournalSequence = sequence
        if logs {
            logRecords += 1
            logBytes += body.count
            loggedWrites.append(writes.rows + writes.later)
            loggedJournal += journal
            for (key, value) in batch.metadata { loggedMetadata[key] = value }
        } else {
            clearChangeLogState()
        }
        for record in batch.instances { knownInstances[record.id] = .some(record.dedupKey) }
        for id in batch.deletedInstances { knownInstances[id] = nil }
    }

    /// Writes the change log to its tables now (the engine calls this when it goes idle).
    ///
    /// - Throws: ``StepwiseError`` `storage` (the log stays and is folded later).
    public func settle() throws(StepwiseError) {
        guard logRecords > 0 else { return }
        do {
            try connection.transaction(.immediate) { try foldChangeLog() }
        } catch let error as SQLiteError {
            throw storageError("cannot fold the change log", error)
        } catch {
            throw StepwiseError(.storage, "cannot fold the change log: \(error)")
        }
        clearChangeLogState()
    }

    /// Whether a batch can go to the change log: nothing in it can fail a constraint or must
    /// be seen by SQL at once. New instances (the id and live dedup key constraints), a dedup
    /// key being set, sequences, deletions and dead letters are written directly.
    private func isLoggable(_ batch: StoreBatch) -> Bool {
        guard batch.sequences.isEmpty, batch.deletedInstances.isEmpty, batch.deadLetters.isEmpty,
            batch.deletedDeadLetters.isEmpty, batch.deletedSequences.isEmpty
        else { return false }
        for record in batch.instances {
            guard let stored = knownInstances[record.id] else { return false }
            if let key = record.dedupKey, key != stored { return false }
        }
        return true
    }

    /// Reads the change log's records in order, writes their coalesced rows and empties it.
    /// Runs inside the caller's transaction; the in-memory state is cleared by the caller
    /// once that transaction commits.
    func foldChangeLog() throws(SQLiteError) {
        guard logRecords > 0 else { return }
        // Records this store wrote are still in memory; only records left by an earlier
        // process (recovery) are read back and decoded.
        var records = loggedWrites
        if records.count != logRecords {
            records = []
            let s = try connection.cachedStatement("SELECT seq, body FROM change_log ORDER BY seq")
            defer { s.reset() }
            while try s.step() { records.append(try SQLiteChangeLog.decode(s.blob(at: 1), record: s.int64(at: 0))) }
        }
        try apply(SQLiteChangeLog.coalesce(records))
        try connection.execute("DELETE FROM change_log")
    }

    func clearChangeLogState() {
        loggedWrites = []
        logRecords = 0
        logBytes = 0
        loggedJournal = []
        loggedMetadata = [:]
    }

    /// The row writes of a batch: instance, node and journal rows, then (after deletions in a
    /// direct write) outbox and metadata changes.
    private func rowWrites(_ batch: StoreBatch, journal: [JournalEntry]) -> (rows: [SQLiteRowWrite], later: [SQLiteRowWrite]) {
        var rows: [SQLiteRowWrite] = []
        rows.reserveCapacity(batch.instances.count + batch.nodes.count * 2 + journal.count)
        for record in batch.instances { rows.append(SQLiteRowWrite(statement: .upsertInstance, values: Self.values(of: record))) }
        for (instance, nodes) in batch.nodes {
            for node in nodes { rows.append(SQLiteRowWrite(statement: .upsertNode, values: Self.values(of: node, in: instance))) }
        }
        for entry in journal { rows.append(SQLiteRowWrite(statement: .insertJournal, values: Self.values(of: entry))) }
        var later = outboxWrites(batch, now: batch.now)
        for (key, value) in batch.metadata { later.append(SQLiteRowWrite(statement: .setMetadata, values: [.text(key), .text(value)])) }
        return (rows, later)
    }

    private func write(_ batch: StoreBatch, _ writes: (rows: [SQLiteRowWrite], later: [SQLiteRowWrite])) throws(SQLiteError) {
        for (stored, bytes) in batch.sequences {
            let s = try connection.cachedStatement(
                """
                INSERT INTO sequences (name, version, bytes, sha256, origin, installed_at, deprecated, retired)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(name, version) DO UPDATE SET deprecated = excluded.deprecated, retired = excluded.retired
                """)
            try s.bind(stored.key.name, at: 1)
            try s.bind(stored.key.version, at: 2)
            try s.bind(bytes, at: 3)
            try s.bind(stored.sha256, at: 4)
            try s.bind(stored.origin, at: 5)
            try s.bind(stored.installedAt, at: 6)
            try s.bind(stored.isDeprecated, at: 7)
            try s.bind(stored.isRetired, at: 8)
            try s.execute()
        }
        try apply(writes.rows)
        for id in batch.deletedInstances {
            for sql in [
                "DELETE FROM journal WHERE instance_id = ?", "DELETE FROM journal_chunks WHERE instance_id = ?",
                "DELETE FROM nodes WHERE instance_id = ?",
                "DELETE FROM dead_letters WHERE instance_id = ?", "DELETE FROM outbox WHERE instance_id = ?",
                "DELETE FROM instances WHERE id = ?",
            ] {
                let s = try connection.cachedStatement(sql)
                try s.bind(id.rawValue, at: 1)
                try s.execute()
            }
        }
        try writeDeadLetters(batch)
        try apply(writes.later)
    }

    /// Runs row writes in order; journal entries go in as chunks after the others.
    private func apply(_ writes: [SQLiteRowWrite]) throws(SQLiteError) {
        var journal: [SQLiteRowWrite] = []
        for write in writes {
            if write.statement == .insertJournal { journal.append(write) } else { try write.execute(on: connection) }
        }
        try writeJournalChunks(journal)
    }

    // The upserts run several times per commit: as `static let`s their text keeps one address,
    // so the statement cache finds them without hashing the interpolated SQL on every call.
    static let upsertInstanceSQL = """
        INSERT INTO instances (\(instanceColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET state = excluded.state, data = excluded.data, config = excluded.config,
          outputs = excluded.outputs, error = excluded.error, cancel_requested = excluded.cancel_requested,
          paused = excluded.paused, dedup_key = excluded.dedup_key, updated_at = excluded.updated_at,
          finished_at = excluded.finished_at, lifetime_started_at = excluded.lifetime_started_at,
          steps_executed = excluded.steps_executed, hooks = excluded.hooks, next_node_id = excluded.next_node_id,
          precompleted = excluded.precompleted
        """

    static let upsertNodeSQL = """
        INSERT INTO nodes (instance_id, \(nodeColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(instance_id, node_id) DO UPDATE SET state = excluded.state, phase = excluded.phase,
          attempt = excluded.attempt, due_at = excluded.due_at, started_at = excluded.started_at,
          finished_at = excluded.finished_at, error = excluded.error, progress = excluded.progress
        """

    static func values(of r: InstanceRecord) -> [SQLiteValue] {
        [
            .text(r.id.rawValue), .text(r.sequence.name), .integer(Int64(r.sequence.version)), .text(r.state.rawValue),
            .blob(encode(.object(r.data))), .blob(encode(.object(r.config))), .blob(encode(.object(r.outputs))),
            r.error.map { .blob(encode($0.jsonValue)) } ?? .null, .integer(r.cancelRequested ? 1 : 0), .integer(r.isPaused ? 1 : 0),
            r.parentInstance.map { .text($0.rawValue) } ?? .null, r.parentNode.map { .integer(Int64($0.rawValue)) } ?? .null,
            r.dedupKey.map(SQLiteValue.text) ?? .null, .integer(r.createdAt), .integer(r.updatedAt),
            r.finishedAt.map(SQLiteValue.integer) ?? .null, .integer(r.lifetimeStartedAt), .integer(Int64(r.stepsExecuted)),
            .integer(Int64(r.depth)), .integer(Int64(bitPattern: r.randomSeed)), .text(r.hooks.rawValue),
            .integer(Int64(r.nextNodeID)), r.precompleted.map { .blob(encode(.object($0))) } ?? .null,
        ]
    }

    static func values(of n: Node, in instance: InstanceID) -> [SQLiteValue] {
        let progress = n.progress.jsonValue
        return [
            .text(instance.rawValue), .integer(Int64(n.id.rawValue)), n.parent.map { .integer(Int64($0.rawValue)) } ?? .null,
            .integer(Int64(n.blockIndex)), .integer(Int64(n.list)), .integer(Int64(n.position)), .integer(Int64(n.iteration)),
            .text(n.state.rawValue), .text(n.phase.rawValue), .integer(Int64(n.attempt)), n.dueAt.map(SQLiteValue.integer) ?? .null,
            n.startedAt.map(SQLiteValue.integer) ?? .null, n.finishedAt.map(SQLiteValue.integer) ?? .null,
            n.error.map { .blob(encode($0.jsonValue)) } ?? .null,
            (progress.objectValue?.isEmpty ?? true) ? .null : .blob(encode(progress)),
        ]
    }
}
