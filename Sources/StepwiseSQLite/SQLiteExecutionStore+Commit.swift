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
        let logs = isLoggable(batch) && logRecords < Self.maxLogRecords && logBytes < Self.maxLogBytes
        var journal = batch.journal
        var sequence = nextJournalSequence
        var writes: (all: [SQLiteRowWrite], laterStart: Int) = ([], 0)
        var body: [UInt8] = []
        var loggedRow: Int64 = 0
        do {
            try connection.transaction(.immediate) {
                // Journal sequence numbers are assigned here, under the write lock, so entries
                // still in the change log have theirs and read in commit order with the stored
                // ones. Another connection that committed meanwhile (a second process) may
                // have used numbers past ours: then the next free one is looked up again.
                let version = try dataVersion()
                if version != lastDataVersion {
                    sequence = max(sequence, try lastStoredJournalSequence() + 1)
                    lastDataVersion = version
                }
                for i in journal.indices {
                    journal[i].sequence = sequence
                    sequence += 1
                }
                writes = rowWrites(batch, journal: journal, asChanges: logs)
                if logs {
                    SQLiteChangeLog.encode(writes.all, into: &body)
                    let s = try connection.cachedStatement("INSERT INTO change_log (last_journal_seq, body) VALUES (?, ?)")
                    try s.bind(sequence - 1, at: 1)
                    try s.bind(body, at: 2)
                    try s.execute()
                    loggedRow = connection.lastInsertRowID
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
            loggedWrites.append(writes.all)
            loggedRowIDs.append(loggedRow)
            loggedJournal += journal
            for (key, value) in batch.metadata { loggedMetadata[key] = value }
            // A finished instance's record is not changed again (nothing copies its objects on
            // write for being held here); one that goes on is replayed from its changes.
            for record in batch.instances { loggedFinishedInstances[record.id] = record.finishedAt == nil ? nil : record }
        } else {
            clearChangeLogState()
        }
        for record in batch.instances { storedRows[record.id] = StoredInstanceRow(record) }
        for id in batch.deletedInstances { storedRows[id] = nil }
    }

    /// `PRAGMA data_version`: changes when another connection commits.
    func dataVersion() throws(SQLiteError) -> Int64 {
        let s = try connection.cachedStatement("PRAGMA data_version")
        defer { s.reset() }
        return try s.step() ? s.int64(at: 0) : 0
    }

    /// Change-log records from which an idle engine has the log folded.
    static let idleFoldRecords = 256
    /// Change-log bytes from which an idle engine has the log folded.
    static let idleFoldBytes = 1 << 20

    /// Folds the change log when it holds at least ``idleFoldRecords`` records or
    /// ``idleFoldBytes`` bytes. A fold costs a transaction and some pages whatever its size,
    /// so an engine that goes idle between short bursts folds every few bursts rather than after
    /// each; reads still fold first, and opening the file folds what is left.
    ///
    /// - Throws: ``StepwiseError`` `storage` (the log stays and is folded later).
    public func idle() throws(StepwiseError) {
        guard logRecords >= Self.idleFoldRecords || logBytes >= Self.idleFoldBytes else { return }
        try settle()
    }

    /// Writes the change log to its tables now (the engine calls this when it pauses or shuts
    /// down, and reads of the tables call it first).
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
    /// be seen by SQL at once. A dedup key being set (the live dedup key index), sequences,
    /// deletions (marker pruning included) and dead letters are written directly.
    ///
    /// A new instance without a dedup key is logged: its id is free (the engine generated it,
    /// or looked a supplied one up with ``containsInstance(_:)``, which sees logged rows), and
    /// its row references only a stored sequence version. Its first logged row holds whole
    /// objects, since there is no stored version for changes to apply to.
    private func isLoggable(_ batch: StoreBatch) -> Bool {
        guard batch.sequences.isEmpty, batch.deletedInstances.isEmpty, batch.deadLetters.isEmpty,
            batch.deletedDeadLetters.isEmpty, batch.deletedSequences.isEmpty, batch.pruneCommandMarkersBefore == nil
        else { return false }
        for record in batch.instances {
            let storedKey: String?
            if let stored = storedRows[record.id] { storedKey = stored.dedupKey } else { storedKey = nil }
            if let key = record.dedupKey, key != storedKey { return false }
        }
        return true
    }

    /// Reads the change log's records in order, writes their coalesced rows and empties it.
    /// Runs inside the caller's transaction; the in-memory state is cleared by the caller
    /// once that transaction commits.
    func foldChangeLog() throws(SQLiteError) {
        guard logRecords > 0 else { return }
        // What is in the table decides: another connection to the file (a second process
        // opening it, which writes a log it finds) may have folded some or all of the
        // records this store wrote. Each fold applies and deletes, in one transaction, exactly
        // the records present, so every record is applied once whoever folds it.
        var present: [Int64] = []
        let ids = try connection.cachedStatement("SELECT seq FROM change_log ORDER BY seq")
        do {
            defer { ids.reset() }
            while try ids.step() { present.append(ids.int64(at: 0)) }
        }
        guard let last = present.last else { return }
        var records: [[SQLiteRowWrite]]
        var finished = loggedFinishedInstances
        if present == loggedRowIDs && loggedWrites.count == present.count {
            // This store's own records, still in memory.
            records = loggedWrites
        } else {
            // Another connection folded some: the records present say what is left to write.
            finished = [:]
            records = []
            let s = try connection.cachedStatement("SELECT seq, body FROM change_log WHERE seq <= ? ORDER BY seq")
            do {
                defer { s.reset() }
                try s.bind(last, at: 1)
                while try s.step() { records.append(try SQLiteChangeLog.decode(s.blob(at: 1), record: s.int64(at: 0))) }
            }
        }
        let writes = try foldedWrites(records, finished: finished)
        try apply(writes)
        let delete = try connection.cachedStatement("DELETE FROM change_log WHERE seq <= ?")
        try delete.bind(last, at: 1)
        try delete.execute()
    }

    func clearChangeLogState() {
        // Finished instances rarely change again (a later change is a direct write): they are
        // not remembered, so memory follows the live instances only.
        storedRows = storedRows.filter { !$0.value.isFinished }
        loggedWrites = []
        loggedRowIDs = []
        logRecords = 0
        logBytes = 0
        loggedJournal = []
        loggedMetadata = [:]
        loggedFinishedInstances = [:]
    }

    /// The row writes of a batch: instance, node and journal rows, then (after deletions in a
    /// direct write) outbox and metadata changes.
    /// With `asChanges` (a logged commit), an instance row's data, config and outputs are
    /// written as the members the engine changed since its previous commit (see
    /// ``objectColumn(_:changed:)``).
    private func rowWrites(_ batch: StoreBatch, journal: [JournalEntry], asChanges: Bool)
        -> (all: [SQLiteRowWrite], laterStart: Int)
    {
        var rows: [SQLiteRowWrite] = []
        rows.reserveCapacity(batch.instances.count + batch.nodes.count * 2 + journal.count + batch.metadata.count)
        for record in batch.instances {
            let values: [SQLiteValue]
            if asChanges, storedRows[record.id] != nil, let changes = batch.objectChanges[record.id] {
                values = Self.values(
                    of: record, data: Self.objectColumn(record.data, changed: changes.data),
                    config: Self.objectColumn(record.config, changed: changes.config),
                    outputs: Self.objectColumn(record.outputs, changed: changes.outputs))
            } else {
                values = Self.values(of: record)
            }
            rows.append(SQLiteRowWrite(statement: .upsertInstance, values: values))
        }
        for (instance, nodes) in batch.nodes {
            for node in nodes { rows.append(SQLiteRowWrite(statement: .upsertNode, values: Self.values(of: node, in: instance))) }
        }
        for entry in journal { rows.append(SQLiteRowWrite(statement: .insertJournal, values: Self.values(of: entry))) }
        let laterStart = rows.count
        rows += outboxWrites(batch, now: batch.now)
        for (key, value) in batch.metadata { rows.append(SQLiteRowWrite(statement: .setMetadata, values: [.text(key), .text(value)])) }
        return (rows, laterStart)
    }

    private func write(_ batch: StoreBatch, _ writes: (all: [SQLiteRowWrite], laterStart: Int)) throws(SQLiteError) {
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
        try apply(writes.all[..<writes.laterStart])
        for id in batch.deletedInstances {
            for sql in [
                "DELETE FROM journal WHERE instance_id = ?", "DELETE FROM journal_chunks WHERE instance_id = ?",
                "DELETE FROM nodes WHERE instance_id = ?",
                "DELETE FROM dead_letters WHERE instance_id = ?", "DELETE FROM outbox WHERE instance_id = ?",
                "DELETE FROM instances WHERE id = ?",
                // Per-instance metadata: the start input older versions kept there, a graceful
                // follow-up already started (one still owed stays).
                "DELETE FROM metadata WHERE key = 'input:' || ?1 OR (key = 'followup:' || ?1 AND value = '')",
            ] {
                let s = try connection.cachedStatement(sql)
                try s.bind(id.rawValue, at: 1)
                try s.execute()
            }
        }
        try writeDeadLetters(batch)
        if let before = batch.pruneCommandMarkersBefore {
            let s = try connection.cachedStatement("DELETE FROM command_markers WHERE executed_at < ?")
            try s.bind(before, at: 1)
            try s.execute()
        }
        try apply(writes.all[writes.laterStart...])
    }

    /// Runs row writes in order; journal entries go in as chunks after the others.
    private func apply(_ writes: some Collection<SQLiteRowWrite>) throws(SQLiteError) {
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
        values(of: r, data: .blob(encode(.object(r.data))), config: .blob(encode(.object(r.config))), outputs: .blob(encode(.object(r.outputs))))
    }

    /// Column positions of data, config and outputs in an instance row write.
    static let objectColumns = [4, 5, 6]

    static func values(of r: InstanceRecord, data: SQLiteValue, config: SQLiteValue, outputs: SQLiteValue) -> [SQLiteValue] {
        [
            .text(r.id.rawValue), .text(r.sequence.name), .integer(Int64(r.sequence.version)), .text(r.state.rawValue),
            data, config, outputs,
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

    /// An object column of a logged instance row: `null` when unchanged since the previous
    /// commit, text holding the members to set (`[[key, value], ...]`, in the object's order)
    /// when only members were set, else the whole object as a blob. A step adds one member to
    /// data and outputs: logging the members, not the objects, keeps a step's record the same
    /// size however many steps ran before.
    static func objectColumn(_ object: JSONObject, changed keys: Set<String>?) -> SQLiteValue {
        guard let keys, keys.count <= object.count / 2 + 1 else { return .blob(encode(.object(object))) }
        if keys.isEmpty { return .null }
        var positions: [(Int, String)] = []
        positions.reserveCapacity(keys.count)
        for key in keys {
            guard let position = object.position(of: key) else { return .blob(encode(.object(object))) }
            positions.append((position, key))
        }
        positions.sort { $0.0 < $1.0 }
        let members = JSONValue.array(positions.map { .array([.string($0.1), object[$0.1] ?? .null]) })
        return .text(String(decoding: encode(members), as: UTF8.self))
    }

    /// The writes that fold `records`: coalesced (see ``SQLiteChangeLog/coalesce(_:)``), each
    /// instance row with whole object columns. A logged column holds the members set since
    /// the version before; they are applied in order to the last whole version (from an earlier
    /// record or the stored row), decoding and encoding each object once per fold.
    ///
    /// - Throws: ``SQLiteError`` `SQLITE_CORRUPT` when a change has no version to apply to or
    ///   is not well-formed.
    func foldedWrites(
        _ records: [[SQLiteRowWrite]], finished: [InstanceID: InstanceRecord] = [:]
    ) throws(SQLiteError) -> [SQLiteRowWrite] {
        var objects: [SQLiteValue: [Int: ObjectVersion]] = [:]
        // The stored rows' object columns, read once per instance when first needed.
        var stored: [SQLiteValue: [Int: [UInt8]]] = [:]
        func storedColumn(_ column: Int, of id: SQLiteValue) throws(SQLiteError) -> [UInt8] {
            if stored[id] == nil { stored[id] = try storedObjectColumns(of: id) }
            return stored[id]?[column] ?? []
        }
        for writes in records {
            for write in writes where write.statement == .upsertInstance {
                let id = write.values[0]
                if let text = id.textValue, finished[InstanceID(trusted: text)] != nil { continue }
                // Taken out while changed, so that the object being set is its only copy.
                var columns = objects.removeValue(forKey: id) ?? [:]
                for column in Self.objectColumns {
                    switch write.values[column] {
                    case .blob(let bytes):
                        columns[column] = .encoded(bytes)
                    case .null:
                        continue
                    case .text(let members):
                        var object: JSONObject
                        switch columns.removeValue(forKey: column) {
                        case .decoded(let decoded)?: object = decoded
                        case .encoded(let bytes)?: object = try ObjectVersion.object(bytes, instance: id)
                        case nil: object = try ObjectVersion.object(try storedColumn(column, of: id), instance: id)
                        }
                        try Self.apply(members, to: &object, instance: id)
                        columns[column] = .decoded(object)
                    default:
                        throw SQLiteError(extendedCode: 11, message: "change log: instance \(id) has a malformed column \(column)")
                    }
                }
                objects[id] = columns
            }
        }
        var result: [SQLiteRowWrite] = []
        for write in SQLiteChangeLog.coalesce(records) {
            guard write.statement == .upsertInstance else {
                result.append(write)
                continue
            }
            let id = write.values[0]
            if let text = id.textValue, let record = finished[InstanceID(trusted: text)] {
                result.append(SQLiteRowWrite(statement: .upsertInstance, values: Self.values(of: record)))
                continue
            }
            var values = write.values
            for column in Self.objectColumns {
                if let version = objects[id]?[column] {
                    values[column] = .blob(version.bytes)
                } else if case .null = values[column] {
                    values[column] = .blob(try storedColumn(column, of: id))
                }
            }
            result.append(SQLiteRowWrite(statement: .upsertInstance, values: values))
        }
        return result
    }

    /// One version of an object column during a fold: as stored, or decoded to apply changes.
    enum ObjectVersion {
        case encoded([UInt8])
        case decoded(JSONObject)

        static func object(_ bytes: [UInt8], instance: SQLiteValue) throws(SQLiteError) -> JSONObject {
            guard let object = decode(bytes).objectValue else {
                throw SQLiteError(extendedCode: 11, message: "change log: the changes of instance \(instance) cannot be applied")
            }
            return object
        }

        var bytes: [UInt8] {
            switch self {
            case .encoded(let bytes): bytes
            case .decoded(let object): encode(.object(object))
            }
        }
    }

    /// The stored row's object column at write position `column`.
    /// The stored row's object columns, by their write positions.
    private func storedObjectColumns(of id: SQLiteValue) throws(SQLiteError) -> [Int: [UInt8]] {
        let s = try connection.cachedStatement("SELECT data, config, outputs FROM instances WHERE id = ?")
        defer { s.reset() }
        try s.bind(id, at: 1)
        guard try s.step() else {
            throw SQLiteError(extendedCode: 11, message: "change log: instance \(id) changes a row that is not stored")
        }
        var columns: [Int: [UInt8]] = [:]
        for (index, column) in Self.objectColumns.enumerated() { columns[column] = s.blob(at: index) }
        return columns
    }

    private static func apply(_ members: String, to object: inout JSONObject, instance: SQLiteValue) throws(SQLiteError) {
        guard case .array(let pairs)? = try? JSONParser.parse(Array(members.utf8), limits: .init(maxDepth: 100_000)) else {
            throw SQLiteError(extendedCode: 11, message: "change log: the changes of instance \(instance) cannot be applied")
        }
        for pair in pairs {
            guard case .array(let kv) = pair, kv.count == 2, case .string(let key) = kv[0] else {
                throw SQLiteError(extendedCode: 11, message: "change log: a change of instance \(instance) is malformed")
            }
            object[key] = kv[1]
        }
    }
}
