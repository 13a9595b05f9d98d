internal import CSQLite

/// One connection to an SQLite database file, in WAL mode.
///
/// Opening a connection creates the file if needed and configures it (see
/// ``Configuration``): WAL journal mode (verified), `synchronous` per
/// ``Configuration/durability``, the busy timeout and foreign keys. It also reads the
/// schema, so a file that is not a database fails right here with
/// ``SQLiteError/isCorrupt``. The database closes when the connection and every statement
/// prepared on it are released.
///
/// ```swift
/// let connection = try SQLiteConnection(path: databasePath)
/// try connection.execute("""
///     CREATE TABLE IF NOT EXISTS nodes(id INTEGER PRIMARY KEY, state TEXT NOT NULL);
///     CREATE INDEX IF NOT EXISTS nodes_state ON nodes(state);
///     """)
/// try connection.transaction {
///     try connection.execute("INSERT INTO nodes(state) VALUES (?)", bindings: ["ready"])
/// }
/// let count = try connection.queryValue("SELECT count(*) FROM nodes")?.int64Value
/// ```
///
/// ## Concurrency
///
/// A connection is opened with `SQLITE_OPEN_NOMUTEX`: SQLite does no locking of its own,
/// so the connection is not `Sendable` and must stay on one thread or actor at a time. The
/// one exception is ``interruptHandle``, which any thread may use. Use one writing
/// connection per database file; other connections (or processes) wait up to the busy
/// timeout for its locks.
///
/// ## Statements
///
/// Statements are compiled once and kept in a cache keyed by their SQL text: the conveniences
/// (``execute(_:bindings:)``, ``query(_:bindings:)``, ``queryValue(_:bindings:)``) and
/// ``cachedStatement(_:)`` use it. Write the SQL with parameters (`?`, `:name`), never by
/// interpolating values, so the cache stays small and values cannot inject SQL.
public final class SQLiteConnection {
    /// The database handle shared with this connection's statements.
    let handle: SQLiteHandle
    /// Prepared statements by SQL text.
    private var statementCache: [String: SQLiteStatement] = [:]
    /// A direct-mapped memo in front of ``statementCache``, indexed by the address of the SQL
    /// text's bytes: the engine passes the same string literals again and again, and a
    /// literal's bytes always live at the same address, so a hit skips hashing the text. A
    /// hit is confirmed by comparing the text with the statement's (O(1) when both share
    /// storage). Entries are unretained: every memoized statement is also in
    /// ``statementCache``, which keeps it alive, and both are cleared together.
    private var statementMemo = [StatementMemoEntry](repeating: StatementMemoEntry(), count: 64)

    /// The path this connection was opened with.
    public let path: String
    /// The configuration applied at open.
    public let configuration: Configuration

    /// Opens (creating if needed, unless read-only) and configures a database.
    ///
    /// - Parameters:
    ///   - path: a file path; `":memory:"` opens a private in-memory database (which reports
    ///     journal mode `memory` instead of `wal`).
    ///   - configuration: what to set up; see ``Configuration``.
    /// - Throws: ``SQLiteError`` when the file cannot be opened (`SQLITE_CANTOPEN`), is not
    ///   a database or is damaged (``SQLiteError/isCorrupt``), is locked beyond the busy
    ///   timeout (``SQLiteError/isBusy``), or refuses WAL mode.
    public init(path: String, configuration: Configuration = Configuration()) throws(SQLiteError) {
        // https://www.sqlite.org/c3ref/open.html
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= configuration.isReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var database: OpaquePointer?
        let resultCode = sqlite3_open_v2(path, &database, flags, nil)
        guard resultCode == SQLITE_OK, let database else {
            // > Whether or not an error occurs when it is opened, resources associated with
            // > the database connection handle should be released by passing it to
            // > sqlite3_close() when it is no longer required.
            let message = database.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
                ?? sqlite3_errstr(resultCode).map { String(cString: $0) }
                ?? "cannot open database"
            let extendedCode = database.map { sqlite3_extended_errcode($0) } ?? resultCode
            sqlite3_close_v2(database)
            throw SQLiteError(extendedCode: extendedCode, message: "\(message): \(path)")
        }
        self.handle = SQLiteHandle(database: database)
        self.path = path
        self.configuration = configuration
        try configure()
    }

    /// Applies ``configuration`` to the freshly opened database.
    private func configure() throws(SQLiteError) {
        let database = handle.database
        sqlite3_extended_result_codes(database, 1)
        sqlite3_busy_timeout(database, configuration.busyTimeoutMilliseconds)

        // Opening is lazy: reading the schema is the first access to the file, and fails
        // with SQLITE_NOTADB when it is not a database.
        _ = try queryValue("PRAGMA schema_version")

        if !configuration.isReadOnly {
            // https://www.sqlite.org/pragma.html#pragma_journal_mode
            // > The new journal mode is returned. If the journal mode could not be changed,
            // > the original journal mode is returned.
            let sql = "PRAGMA journal_mode = WAL"
            let mode = try queryValue(sql)?.textValue?.lowercased()
            guard mode == "wal" || (mode == "memory" && isInMemory) else {
                throw SQLiteError(
                    extendedCode: SQLITE_ERROR,
                    message: "could not enable WAL mode; journal mode is \(mode ?? "unknown")",
                    sql: sql
                )
            }
        }
        switch configuration.durability {
        case .normal: try execute("PRAGMA synchronous = NORMAL")
        case .full: try execute("PRAGMA synchronous = FULL")
        }
        try execute(configuration.enforcesForeignKeys ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF")
        // Some builds (Debian's among them) default to secure_delete = ON, which writes every
        // freed page again, zeroed: deleting rows then costs as much I/O as writing them.
        // FAST still zeroes deleted content inside pages that are written anyway, so one
        // setting gives the same I/O on every platform.
        // https://www.sqlite.org/pragma.html#pragma_secure_delete
        try execute("PRAGMA secure_delete = FAST")
    }

    /// Whether the main database lives in memory (no file name).
    private var isInMemory: Bool {
        guard let name = sqlite3_db_filename(handle.database, "main") else { return true }
        return name.pointee == 0
    }

    // MARK: - Statements

    /// A prepared statement for `sql`, from the cache, reset with its bindings cleared.
    ///
    /// The first call for a given text compiles it; later calls return the same statement.
    /// If that statement is inside ``SQLiteStatement/forEachRow(_:)`` right now (a nested
    /// use of the same SQL), a fresh uncached statement is returned instead.
    ///
    /// ```swift
    /// let insert = try connection.cachedStatement("INSERT INTO events(kind, body) VALUES (?, ?)")
    /// try insert.bind(kind, at: 1)
    /// try insert.bind(body, at: 2)
    /// try insert.execute()
    /// ```
    ///
    /// - Parameter sql: exactly one SQL statement.
    /// - Returns: the statement, ready to bind and run.
    /// - Throws: ``SQLiteError`` when the SQL does not compile or holds more than one
    ///   statement (`SQLITE_MISUSE`).
    /// - Complexity: O(1) on a hit. Passing the same string storage again (a string literal,
    ///   a `static let`) is fastest: no hashing of the text.
    /// - Important: Use the statement before the next checkout of the same SQL text: both
    ///   checkouts share one statement.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let address = sql.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? 0
        let slot = Int(truncatingIfNeeded: (address >> 4) & 63)
        let statement: SQLiteStatement
        if statementMemo[slot].address == address,
            let memoized = statementMemo[slot].statement?.takeUnretainedValue(),
            memoized.sql == sql
        {
            statement = memoized
        } else if let cached = statementCache[sql] {
            statement = cached
            statementMemo[slot] = StatementMemoEntry(address: address, statement: .passUnretained(cached))
        } else {
            let prepared = try SQLiteStatement(handle: handle, sql: sql, persistent: true)
            statementCache[sql] = prepared
            statementMemo[slot] = StatementMemoEntry(address: address, statement: .passUnretained(prepared))
            return prepared
        }
        guard !statement.isIterating else {
            return try makeStatement(sql)
        }
        statement.prepareForReuse()
        return statement
    }

    /// Compiles a statement that is not cached: it is yours until you release it.
    ///
    /// - Parameter sql: exactly one SQL statement.
    /// - Returns: the statement.
    /// - Throws: ``SQLiteError`` when the SQL does not compile or holds more than one
    ///   statement (`SQLITE_MISUSE`).
    public func makeStatement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(handle: handle, sql: sql, persistent: false)
    }

    /// The number of statements in the cache.
    public var cachedStatementCount: Int { statementCache.count }

    /// Empties the statement cache (statements still held elsewhere stay valid).
    public func clearStatementCache() {
        statementMemo = Array(repeating: StatementMemoEntry(), count: statementMemo.count)
        statementCache.removeAll()
    }

    // MARK: - Running SQL

    /// Runs a script: zero or more SQL statements separated by semicolons, in order, without
    /// caching them.
    ///
    /// ```swift
    /// try connection.execute("""
    ///     CREATE TABLE a(x);
    ///     CREATE TABLE b(y);
    ///     """)
    /// ```
    ///
    /// Statements before a failing one stay executed; wrap the script in
    /// ``transaction(_:_:)`` to make it atomic. The fault injector sees each step as
    /// ``SQLiteFaultPoint/step(sql:)``.
    ///
    /// - Parameter sql: the script; it cannot take bindings.
    /// - Throws: ``SQLiteError`` for the first statement that fails to compile or run; its
    ///   ``SQLiteError/sql`` is that statement (for a compile error, the rest of the script).
    public func execute(_ sql: String) throws(SQLiteError) {
        var failure: SQLiteError?
        sql.withCString { script in
            var cursor = script
            while cursor.pointee != 0 {
                var prepared: OpaquePointer?
                var next: UnsafePointer<CChar>?
                let resultCode = sqlite3_prepare_v2(handle.database, cursor, -1, &prepared, &next)
                guard resultCode == SQLITE_OK else {
                    let remaining = String(cString: cursor).drop { $0.isWhitespace || $0 == ";" }
                    failure = handle.error(resultCode, sql: String(remaining))
                    return
                }
                guard let prepared else { return }  // only whitespace or comments remain
                let statement = SQLiteStatement(handle: handle, prepared: prepared)
                do throws(SQLiteError) {
                    try statement.execute()
                } catch {
                    failure = error
                    return
                }
                guard let next else { return }
                cursor = next
            }
        }
        if let failure {
            throw failure
        }
    }

    /// Runs one statement with bindings to completion (rows are ignored), using the cache.
    ///
    /// ```swift
    /// try connection.execute("UPDATE nodes SET state = ? WHERE id = ?", bindings: ["done", 42])
    /// ```
    ///
    /// - Parameters:
    ///   - sql: exactly one statement.
    ///   - bindings: one value per parameter, in order.
    /// - Throws: ``SQLiteError`` when the SQL does not compile, the bindings do not match its
    ///   parameters, or running it fails.
    public func execute(_ sql: String, bindings: [SQLiteValue]) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        defer { statement.clearBindings() }
        try statement.bind(bindings)
        try statement.execute()
    }

    /// Runs a query and returns all its rows, using the cache. Meant for small results.
    ///
    /// ```swift
    /// let rows = try connection.query("SELECT id, state FROM nodes WHERE instance = ?", bindings: [7])
    /// for row in rows { print(row[0], row[1]) }
    /// ```
    ///
    /// - Parameters:
    ///   - sql: exactly one statement.
    ///   - bindings: one value per parameter, in order.
    /// - Returns: one array of values per row.
    /// - Throws: ``SQLiteError`` when the SQL does not compile, the bindings do not match, or
    ///   a step fails.
    public func query(_ sql: String, bindings: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        let statement = try cachedStatement(sql)
        defer { statement.clearBindings() }
        try statement.bind(bindings)
        return try statement.fetchAll()
    }

    /// Runs a query and returns the first column of its first row, using the cache.
    ///
    /// ```swift
    /// let pending = try connection.queryValue("SELECT count(*) FROM nodes WHERE state = ?", bindings: ["ready"])
    /// ```
    ///
    /// - Parameters:
    ///   - sql: exactly one statement.
    ///   - bindings: one value per parameter, in order.
    /// - Returns: the value, or `nil` when there is no row (a `NULL` value is
    ///   ``SQLiteValue/null``).
    /// - Throws: ``SQLiteError`` when the SQL does not compile, the bindings do not match, or
    ///   the step fails.
    public func queryValue(_ sql: String, bindings: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteValue? {
        let statement = try cachedStatement(sql)
        defer { statement.clearBindings() }
        try statement.bind(bindings)
        return try statement.fetchFirst()?.first
    }

    // MARK: - State

    /// The rowid of the most recent successful `INSERT` on this connection
    /// ([sqlite3_last_insert_rowid](https://www.sqlite.org/c3ref/last_insert_rowid.html)).
    public var lastInsertRowID: Int64 {
        sqlite3_last_insert_rowid(handle.database)
    }

    /// The rows changed by the most recent `INSERT`, `UPDATE` or `DELETE`
    /// ([sqlite3_changes64](https://www.sqlite.org/c3ref/changes.html)).
    public var changes: Int {
        Int(sqlite3_changes64(handle.database))
    }

    /// The rows changed since the connection opened.
    public var totalChanges: Int {
        Int(sqlite3_total_changes64(handle.database))
    }

    /// Whether a transaction is open (SQLite is not in autocommit mode).
    public var isInTransaction: Bool {
        sqlite3_get_autocommit(handle.database) == 0
    }

    /// The `PRAGMA user_version` of the database: the schema version that
    /// ``SQLiteMigrator`` maintains.
    ///
    /// - Returns: the version; 0 for a new database.
    /// - Throws: ``SQLiteError`` when reading fails.
    public func userVersion() throws(SQLiteError) -> Int32 {
        Int32(truncatingIfNeeded: try queryValue("PRAGMA user_version")?.int64Value ?? 0)
    }

    /// Sets `PRAGMA user_version`. Inside a transaction, the change commits or rolls back
    /// with it.
    ///
    /// - Parameter version: the new version.
    /// - Throws: ``SQLiteError`` when writing fails (read-only, busy, …).
    public func setUserVersion(_ version: Int32) throws(SQLiteError) {
        try execute("PRAGMA user_version = \(version)")
    }

    // MARK: - Interrupting

    /// A `Sendable` handle that interrupts this connection from any thread.
    public var interruptHandle: SQLiteInterruptHandle { handle.interruptHandle }

    /// Interrupts the statements running on this connection, as
    /// ``SQLiteInterruptHandle/interrupt()`` does. Useful from callbacks on the connection's
    /// own thread (for example in a ``SQLiteStatement/forEachRow(_:)`` body); from another
    /// thread, use ``interruptHandle``.
    public func interrupt() {
        handle.interruptHandle.interrupt()
    }

    // MARK: - Hooks

    /// Called at each ``SQLiteFaultPoint`` (every statement step, and around each commit of
    /// ``transaction(_:_:)``), for crash-point and fault testing; `nil` (the default) costs
    /// one check per step.
    ///
    /// Throwing makes the step or commit fail with that error; a commit that fails this way
    /// is rolled back. A test harness may also end the process from here.
    ///
    /// ```swift
    /// connection.faultInjector = { (point) throws(SQLiteError) in
    ///     if case .commit = point { throw SQLiteError.injectedFault("disk unplugged") }
    /// }
    /// ```
    ///
    /// A closure that throws must say `throws(SQLiteError)`, as above.
    ///
    /// - Important: The connection keeps the closure: do not capture the connection in it
    ///   strongly, or neither is ever released.
    public var faultInjector: SQLiteFaultInjector? {
        get { handle.faultInjector }
        set { handle.faultInjector = newValue }
    }

    /// Called with the SQL text of each statement as it starts running, through
    /// [sqlite3_trace_v2](https://www.sqlite.org/c3ref/trace_v2.html) (`SQLITE_TRACE_STMT`);
    /// `nil` (the default) disables tracing.
    ///
    /// The text is the SQL as written, with `?` placeholders: bound values never reach the
    /// tracer. Statements run by triggers appear as `-- TRIGGER name` comments. Transaction
    /// control appears as `BEGIN IMMEDIATE`, `COMMIT`, `ROLLBACK`.
    ///
    /// ```swift
    /// var executed: [String] = []
    /// connection.statementTracer = { executed.append($0) }
    /// ```
    ///
    /// - Important: The connection keeps the closure: do not capture the connection in it
    ///   strongly, or neither is ever released.
    public var statementTracer: ((String) -> Void)? {
        get { handle.statementTracer }
        set {
            handle.statementTracer = newValue
            handle.updateTraceCallback()
        }
    }
}

/// One slot of the statement memo of ``SQLiteConnection/cachedStatement(_:)``.
private struct StatementMemoEntry {
    /// Where the SQL text's bytes were when memoized; 0 when empty.
    var address: UInt = 0
    /// The statement, kept alive by the connection's statement cache.
    var statement: Unmanaged<SQLiteStatement>?
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}
