internal import CSQLite
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
public import StepwiseExecution
import StepwiseJSON

/// The engine's store on a local SQLite file: WAL, one writer connection, one transaction per
/// commit, schema versioned by `PRAGMA user_version`.
///
/// Instances are pinned to their sequence version by a foreign key, so a version cannot be
/// deleted while an instance references it; live dedup keys are a partial unique index.
///
/// A step's commit appends one record to a change log and its rows reach their tables later,
/// coalesced (see `SQLiteChangeLog`); reads through the store see logged changes at once, and
/// opening the file writes a log that a killed process left.
///
/// ```swift
/// let store = try SQLiteExecutionStore(path: "stepwise.db")
/// let engine = try StepwiseEngine(store: store)
/// ```
public final class SQLiteExecutionStore: ExecutionStore {
    let connection: SQLiteConnection
    /// The database file.
    public let path: String

    // The change log (see SQLiteChangeLog): what is logged and not yet folded into the tables.
    /// Records in `change_log`.
    var logRecords = 0
    /// Their encoded size.
    var logBytes = 0
    /// Their row writes (what folding writes, without reading the records back).
    var loggedWrites: [[SQLiteRowWrite]] = []
    /// Their row ids in `change_log`.
    var loggedRowIDs: [Int64] = []
    /// Their journal entries, sequence numbers assigned, for journal reads.
    var loggedJournal: [JournalEntry] = []
    /// Their metadata values, for metadata reads.
    var loggedMetadata: [String: String] = [:]
    /// The last logged version of each instance that has finished, whole: folding this
    /// store's own records writes these instead of replaying each record's member changes.
    var loggedFinishedInstances: [InstanceID: InstanceRecord] = [:]
    /// Instances whose row is stored, with their dedup key: an update of one of these that
    /// keeps its key cannot fail a constraint, so it may be logged.
    var storedRows: [InstanceID: StoredInstanceRow] = [:]
    /// The next journal sequence number.
    var nextJournalSequence: Int64 = 1
    /// `PRAGMA data_version` after this store's last look at the numbers other connections used.
    var lastDataVersion: Int64 = 0

    /// Opens (creating if needed) and migrates the database at `path`.
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - durability: `normal` survives process kills; `full` also power loss.
    ///   - busyTimeoutMs: how long a write waits for another process's lock.
    /// - Throws: ``StepwiseError`` `storage` naming the file and the cause (not a database,
    ///   corrupt, read-only, created by a newer version); `timeout` when another connection
    ///   held the lock for longer than `busyTimeoutMs`.
    public init(
        path: String, durability: EngineConfiguration.Durability = .normal, busyTimeoutMs: Int = 5000
    ) throws(StepwiseError) {
        self.path = path
        // SQLite opens a file it may not write (mode 0444, a read-only directory or mount) read-only
        // without an error, and its first read then creates `-wal`/`-shm` with the file's
        // read-only mode, which keep failing writes after the file is made writable again. The
        // engine can do nothing read-only (recovery itself writes): refuse before SQLite touches it.
        if access(path, F_OK) == 0 && access(path, W_OK) != 0 {
            throw Self.readOnlyError(path)
        }
        // Checked on the file's bytes, before SQLite opens it and switches it to WAL: a store
        // never changes a file that is not its own.
        if let refusal = Self.foreignFileError(path) { throw refusal }
        do {
            connection = try SQLiteConnection(
                path: path,
                configuration: .init(
                    durability: durability == .full ? .full : .normal,
                    busyTimeout: .milliseconds(busyTimeoutMs)))
        } catch {
            throw Self.storageError("cannot open database", error, path: path, busyTimeoutMs: busyTimeoutMs)
        }
        // Whatever the check above could not see (https://www.sqlite.org/c3ref/db_readonly.html).
        if sqlite3_db_readonly(connection.handle.database, "main") == 1 {
            throw Self.readOnlyError(path)
        }
        do {
            _ = try SQLiteExecutionStore.migrator.migrate(connection)
        } catch {
            // A lock, a full disk, a read-only or corrupt file get the same code, reason and
            // message as at any other time (a lock held past busyTimeoutMs is a `timeout`).
            if let migration = error as? SQLiteMigrationError, migration.code == .foreignSchema {
                throw Self.foreignDatabaseError(path, "it has schema version \(migration.databaseVersion) but not Stepwise's tables")
            }
            let cause = ((error as? SQLiteMigrationError)?.underlyingError ?? error) as? SQLiteError
            if let cause, cause.isBusy || cause.isFull || cause.isReadOnly || cause.isCorrupt {
                throw Self.storageError("cannot migrate database", cause, path: path, busyTimeoutMs: busyTimeoutMs)
            }
            throw StepwiseError(.storage, "cannot migrate database \(path): \(error)", context: ["path": .string(path)])
        }
        do {
            // A change log left by a process that stopped before folding it is written now.
            let count = try connection.cachedStatement("SELECT count(*) FROM change_log")
            logRecords = try count.step() ? count.int(at: 0) : 0
            count.reset()
            if logRecords > 0 {
                try connection.transaction(.immediate) { try foldChangeLog() }
                clearChangeLogState()
            }
            nextJournalSequence = try lastStoredJournalSequence() + 1
            lastDataVersion = try dataVersion()
        } catch let error as SQLiteError {
            throw Self.storageError("cannot recover the change log", error, path: path, busyTimeoutMs: busyTimeoutMs)
        } catch {
            throw StepwiseError(.storage, "cannot recover the change log of \(path): \(error)", context: ["path": .string(path)])
        }
    }

    /// Why the file at `path` cannot be a Stepwise database, or nil: it is not a regular file
    /// (a directory, a device), or it is an SQLite database with tables but no Stepwise schema
    /// version (`user_version` 0; a new Stepwise file has no tables yet). A missing or empty file
    /// is fine (it is created), and a file that is not SQLite at all is left to SQLite's own
    /// "not a database" error. Opening the store makes this check first; a tool can make it
    /// before it creates anything beside the file (a lock file).
    ///
    /// Reads at most the file's first 100 bytes; never throws.
    public static func foreignFileError(_ path: String) -> StepwiseError? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return StepwiseError(
                .storage, "cannot open database (\(path)): it is not a regular file",
                context: ["path": .string(path), "reason": "not_a_file"])
        }
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var header = [UInt8](repeating: 0, count: 100)
        guard fread(&header, 1, 100, file) == 100, header.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        // Offset 60: user_version; offset 28: the database size in pages (a new file has 1).
        let userVersion = header[60..<64].reduce(0) { $0 << 8 | UInt32($1) }
        let pages = header[28..<32].reduce(0) { $0 << 8 | UInt32($1) }
        if userVersion == 0 && pages > 1 {
            return foreignDatabaseError(path, "it has tables but no Stepwise schema version")
        }
        // A schema version but a rollback journal (offset 18: 1; Stepwise files are WAL, 2):
        // its tables are looked at read-only, before a writing connection switches it to WAL.
        if userVersion != 0 && header[18] == 1,
            let connection = try? SQLiteConnection(path: path, configuration: .init(isReadOnly: true)),
            let missing = try? migrator.missingIdentifyingTables(connection), !missing.isEmpty
        {
            return foreignDatabaseError(path, "it has schema version \(userVersion) but not Stepwise's tables")
        }
        return nil
    }

    /// The refusal of another application's SQLite database.
    static func foreignDatabaseError(_ path: String, _ why: String) -> StepwiseError {
        StepwiseError(
            .storage, "cannot open database (\(path)): it is an SQLite database of another application (\(why)); nothing was changed",
            context: ["path": .string(path), "reason": "foreign_database"])
    }

    /// The error for a database file this process may not write.
    static func readOnlyError(_ path: String) -> StepwiseError {
        StepwiseError(
            .storage, "cannot open database (\(path)): the file is read-only (SQLITE_READONLY)",
            context: ["path": .string(path), "reason": "read_only", "sqlite_code": 8])
    }

    /// Maps an SQLite failure to the engine's error: `storage` naming the operation, the file and
    /// SQLite's reason, with `context["reason"]` (`disk_full`, `read_only`, `corrupt`, `locked`),
    /// `context["path"]` and `context["sqlite_code"]`.
    ///
    /// `SQLITE_BUSY` (another connection or process holds the write lock and the busy timeout,
    /// `operationTimeoutMs`, ran out) is reported as `timeout`: SEMANTICS §6.1 makes
    /// `operationTimeoutMs` the longest an API call waits for storage, and `timeout` its code.
    static func storageError(_ what: String, _ error: SQLiteError, path: String, busyTimeoutMs: Int) -> StepwiseError {
        var context: JSONObject = ["sqlite_code": .integer(Int64(error.extendedCode)), "path": .string(path)]
        if error.isFull { context["reason"] = "disk_full" }
        if error.isReadOnly { context["reason"] = "read_only" }
        if error.isCorrupt { context["reason"] = "corrupt" }
        if error.isBusy || error.isLocked { context["reason"] = "locked" }
        if error.isBusy {
            context["timeout_ms"] = .integer(Int64(busyTimeoutMs))
            return StepwiseError(
                .timeout,
                "\(what) (\(path)): the database is locked by another connection; gave up after \(busyTimeoutMs) ms "
                    + "(\(error.codeName))",
                context: context)
        }
        return StepwiseError(.storage, "\(what) (\(path)): \(error.message) (\(error.codeName))", context: context)
    }

    /// ``storageError(_:_:path:busyTimeoutMs:)`` for this store's file and busy timeout.
    func storageError(_ what: String, _ error: SQLiteError) -> StepwiseError {
        Self.storageError(what, error, path: path, busyTimeoutMs: busyTimeoutMs)
    }

    /// How long a statement waits for another connection's lock, in milliseconds.
    var busyTimeoutMs: Int { Int(connection.configuration.busyTimeoutMilliseconds) }

    func run<T>(_ what: String, _ body: () throws(SQLiteError) -> T) throws(StepwiseError) -> T {
        do {
            return try body()
        } catch {
            throw storageError(what, error)
        }
    }

    static func encode(_ value: JSONValue) -> [UInt8] { JSONWriter.bytes(value) }

    static func decode(_ bytes: [UInt8]) -> JSONValue {
        (try? JSONParser.parse(bytes, limits: .init(maxDepth: 100_000))) ?? .null
    }

    // MARK: Sequences

    public func storedSequences() throws(StepwiseError) -> [StoredSequence] {
        try run("cannot read sequences") { () throws(SQLiteError) -> [StoredSequence] in
            let statement = try connection.cachedStatement(
                "SELECT name, version, deprecated, origin, sha256, installed_at, retired FROM sequences ORDER BY name, version")
            var result: [StoredSequence] = []
            while try statement.step() {
                result.append(
                    StoredSequence(
                        key: SequenceKey(name: statement.text(at: 0), version: statement.int(at: 1)),
                        isDeprecated: statement.bool(at: 2), origin: statement.text(at: 3), sha256: statement.text(at: 4),
                        installedAt: statement.int64(at: 5), isRetired: statement.bool(at: 6)))
            }
            statement.reset()
            return result
        }
    }

    public func sequenceBytes(_ key: SequenceKey) throws(StepwiseError) -> [UInt8]? {
        try run("cannot read sequence \(key)") { () throws(SQLiteError) -> [UInt8]? in
            let statement = try connection.cachedStatement("SELECT bytes FROM sequences WHERE name = ? AND version = ?")
            defer { statement.reset() }
            try statement.bind(key.name, at: 1)
            try statement.bind(key.version, at: 2)
            return try statement.step() ? statement.blob(at: 0) : nil
        }
    }

    // MARK: Instances

    static let instanceColumns = """
        id, sequence_name, sequence_version, state, data, config, outputs, error, cancel_requested, paused, \
        parent_id, parent_node, dedup_key, created_at, updated_at, finished_at, lifetime_started_at, steps_executed, \
        depth, random_seed, hooks, next_node_id, precompleted
        """

    /// Reads an instance row (columns as ``instanceColumns``). A value that does not decode
    /// falls back to a harmless one and is named in ``InstanceRecord/storedDamage``, so the
    /// substitute never passes for the stored value (each column is decoded once).
    static func readInstance(_ s: SQLiteStatement) -> InstanceRecord {
        var problems: [String] = []
        func object(_ column: Int, _ name: String) -> JSONObject {
            guard let object = decode(s.blob(at: column)).objectValue else {
                problems.append("\(name) is not a JSON object")
                return JSONObject()
            }
            return object
        }
        let stateText = s.text(at: 3)
        let state = InstanceState(rawValue: stateText)
        if state == nil { problems.append("state '\(stateText)' is not an instance state") }
        let data = object(4, "data")
        let config = object(5, "config")
        let outputs = object(6, "outputs")
        var error: InstanceError?
        if !s.isNull(at: 7) {
            error = InstanceError(json: decode(s.blob(at: 7)))
            if error == nil { problems.append("error is not an error object") }
        }
        let hooksText = s.text(at: 20)
        let hooks = HookState(rawValue: hooksText)
        if hooks == nil { problems.append("hooks '\(hooksText)' is not a hook state") }
        let precompleted = s.isNull(at: 22) ? nil : object(22, "precompleted")
        var record = InstanceRecord(
            id: InstanceID(trusted: s.text(at: 0)),
            sequence: SequenceKey(name: s.text(at: 1), version: s.int(at: 2)),
            state: state ?? .failed, data: data, config: config, outputs: outputs, error: error,
            cancelRequested: s.bool(at: 8), isPaused: s.bool(at: 9),
            parentInstance: s.isNull(at: 10) ? nil : InstanceID(trusted: s.text(at: 10)),
            parentNode: s.isNull(at: 11) ? nil : NodeID(rawValue: s.int(at: 11)),
            dedupKey: s.isNull(at: 12) ? nil : s.text(at: 12),
            createdAt: s.int64(at: 13), updatedAt: s.int64(at: 14), finishedAt: s.isNull(at: 15) ? nil : s.int64(at: 15),
            lifetimeStartedAt: s.int64(at: 16), stepsExecuted: s.int(at: 17), depth: s.int(at: 18),
            randomSeed: UInt64(bitPattern: s.int64(at: 19)), hooks: hooks ?? .finished,
            nextNodeID: s.int(at: 21), precompleted: precompleted)
        record.storedDamage = problems.isEmpty ? nil : problems.joined(separator: "; ")
        return record
    }

    static let nodeColumns = """
        node_id, parent, block_index, list, position, iteration, state, phase, attempt, due_at, started_at, \
        finished_at, error, progress
        """

    static func readNode(_ s: SQLiteStatement) -> Node {
        Node(
            id: NodeID(rawValue: s.int(at: 0)), parent: s.isNull(at: 1) ? nil : NodeID(rawValue: s.int(at: 1)),
            blockIndex: s.int(at: 2), list: s.int(at: 3), position: s.int(at: 4), iteration: s.int(at: 5),
            state: NodeState(rawValue: s.text(at: 6)) ?? .failed, phase: NodePhase(rawValue: s.text(at: 7)) ?? .idle,
            attempt: s.int(at: 8), dueAt: s.isNull(at: 9) ? nil : s.int64(at: 9),
            startedAt: s.isNull(at: 10) ? nil : s.int64(at: 10), finishedAt: s.isNull(at: 11) ? nil : s.int64(at: 11),
            error: s.isNull(at: 12) ? nil : NodeError(json: decode(s.blob(at: 12))),
            progress: s.isNull(at: 13) ? NodeProgress() : NodeProgress(json: decode(s.blob(at: 13))))
    }

    func nodes(of id: InstanceID) throws(SQLiteError) -> [Node] {
        let statement = try connection.cachedStatement(
            "SELECT \(Self.nodeColumns) FROM nodes WHERE instance_id = ? ORDER BY node_id")
        defer { statement.reset() }
        try statement.bind(id.rawValue, at: 1)
        var result: [Node] = []
        while try statement.step() { result.append(Self.readNode(statement)) }
        return result
    }

    public func loadLiveInstances() throws(StepwiseError) -> [(InstanceRecord, [Node])] {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot load instances") { () throws(SQLiteError) -> [(InstanceRecord, [Node])] in
            let statement = try connection.cachedStatement(
                "SELECT \(Self.instanceColumns) FROM instances WHERE finished_at IS NULL OR hooks = 'running' ORDER BY created_at, id")
            var records: [InstanceRecord] = []
            while try statement.step() { records.append(Self.readInstance(statement)) }
            statement.reset()
            var byInstance: [InstanceID: [Node]] = [:]
            let nodeStatement = try connection.cachedStatement(
                """
                SELECT n.instance_id, n.node_id, n.parent, n.block_index, n.list, n.position, n.iteration, n.state,
                    n.phase, n.attempt, n.due_at, n.started_at, n.finished_at, n.error, n.progress
                FROM nodes n JOIN instances i ON i.id = n.instance_id
                WHERE i.finished_at IS NULL OR i.hooks = 'running'
                """)
            var nodeDamage: [InstanceID: String] = [:]
            while try nodeStatement.step() {
                let id = InstanceID(trusted: nodeStatement.text(at: 0))
                byInstance[id, default: []].append(Self.readNodeOffset(nodeStatement))
                if nodeDamage[id] == nil, NodeState(rawValue: nodeStatement.text(at: 7)) == nil || NodePhase(rawValue: nodeStatement.text(at: 8)) == nil {
                    nodeDamage[id] = "node \(nodeStatement.int(at: 1)) has state '\(nodeStatement.text(at: 7))' and phase '\(nodeStatement.text(at: 8))'"
                }
            }
            nodeStatement.reset()
            for index in records.indices {
                if let damage = nodeDamage[records[index].id] {
                    records[index].storedDamage = [records[index].storedDamage, damage].compactMap { $0 }.joined(separator: "; ")
                }
                storedRows[records[index].id] = StoredInstanceRow(records[index])
            }
            return records.map { ($0, byInstance[$0.id] ?? []) }
        }
    }

    /// Reads a node whose columns start at index 1.
    static func readNodeOffset(_ s: SQLiteStatement) -> Node {
        Node(
            id: NodeID(rawValue: s.int(at: 1)), parent: s.isNull(at: 2) ? nil : NodeID(rawValue: s.int(at: 2)),
            blockIndex: s.int(at: 3), list: s.int(at: 4), position: s.int(at: 5), iteration: s.int(at: 6),
            state: NodeState(rawValue: s.text(at: 7)) ?? .failed, phase: NodePhase(rawValue: s.text(at: 8)) ?? .idle,
            attempt: s.int(at: 9), dueAt: s.isNull(at: 10) ? nil : s.int64(at: 10),
            startedAt: s.isNull(at: 11) ? nil : s.int64(at: 11), finishedAt: s.isNull(at: 12) ? nil : s.int64(at: 12),
            error: s.isNull(at: 13) ? nil : NodeError(json: decode(s.blob(at: 13))),
            progress: s.isNull(at: 14) ? NodeProgress() : NodeProgress(json: decode(s.blob(at: 14))))
    }

    public func loadInstance(_ id: InstanceID) throws(StepwiseError) -> (InstanceRecord, [Node])? {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot load instance \(id)") { () throws(SQLiteError) -> (InstanceRecord, [Node])? in
            let statement = try connection.cachedStatement("SELECT \(Self.instanceColumns) FROM instances WHERE id = ?")
            try statement.bind(id.rawValue, at: 1)
            guard try statement.step() else {
                statement.reset()
                return nil
            }
            let record = Self.readInstance(statement)
            statement.reset()
            storedRows[record.id] = StoredInstanceRow(record)
            return (record, try nodes(of: id))
        }
    }

    public func containsInstance(_ id: InstanceID) throws(StepwiseError) -> Bool {
        // No fold first: an instance in the change log is one this store wrote, and it
        // remembers those rows until the log is folded.
        if storedRows[id] != nil { return true }
        return try run("cannot look up instance \(id)") { () throws(SQLiteError) -> Bool in
            let statement = try connection.cachedStatement("SELECT 1 FROM instances WHERE id = ?")
            defer { statement.reset() }
            try statement.bind(id.rawValue, at: 1)
            return try statement.step()
        }
    }

    public func instanceHolding(dedupKey: String) throws(StepwiseError) -> InstanceID? {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot look up dedup key") { () throws(SQLiteError) -> InstanceID? in
            let statement = try connection.cachedStatement(
                "SELECT id FROM instances WHERE dedup_key = ? AND finished_at IS NULL")
            defer { statement.reset() }
            try statement.bind(dedupKey, at: 1)
            return try statement.step() ? InstanceID(trusted: statement.text(at: 0)) : nil
        }
    }

    public func instances(matching filter: InstanceFilter, limit: Int, after cursor: InstanceCursor?) throws(StepwiseError)
        -> [InstanceRecord]
    {
        // Reads see the tables: write the change log to them first.
        try settle()
        return try run("cannot list instances") { () throws(SQLiteError) -> [InstanceRecord] in
            var clauses: [String] = []
            var bindings: [SQLiteValue] = []
            if !filter.states.isEmpty {
                clauses.append("state IN (\(filter.states.map { _ in "?" }.joined(separator: ", ")))")
                bindings += filter.states.sorted { $0.rawValue < $1.rawValue }.map { .text($0.rawValue) }
            }
            if let name = filter.sequenceName {
                clauses.append("sequence_name = ?")
                bindings.append(.text(name))
            }
            if let parent = filter.parent {
                clauses.append("parent_id = ?")
                bindings.append(.text(parent.rawValue))
            }
            if let cursor {
                clauses.append("(updated_at < ? OR (updated_at = ? AND id > ?))")
                bindings += [.integer(cursor.updatedAt), .integer(cursor.updatedAt), .text(cursor.id.rawValue)]
            }
            let whereClause = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
            let statement = try connection.makeStatement(
                "SELECT \(Self.instanceColumns) FROM instances \(whereClause) ORDER BY updated_at DESC, id LIMIT \(max(1, limit))")
            try statement.bind(bindings)
            var result: [InstanceRecord] = []
            while try statement.step() { result.append(Self.readInstance(statement)) }
            statement.reset()
            return result
        }
    }

    public func metadata(_ key: String) throws(StepwiseError) -> String? {
        if let logged = loggedMetadata[key] { return logged }
        return try run("cannot read metadata") { () throws(SQLiteError) -> String? in
            let statement = try connection.cachedStatement("SELECT value FROM metadata WHERE key = ?")
            defer { statement.reset() }
            try statement.bind(key, at: 1)
            return try statement.step() ? statement.text(at: 0) : nil
        }
    }
}

extension SQLiteExecutionStore {
    /// A hook consulted before every statement step and around every commit (crash-point tests
    /// abort or kill the process from it); `nil` costs nothing.
    public var faultInjector: SQLiteFaultInjector? {
        get { connection.faultInjector }
        set { connection.faultInjector = newValue }
    }
}
