internal import CSQLite

/// A compiled SQL statement: bind parameters, step through rows, read columns.
///
/// Get statements from a connection: ``SQLiteConnection/cachedStatement(_:)`` for SQL that
/// runs again and again (prepared once, reset and cleared on every checkout), or
/// ``SQLiteConnection/makeStatement(_:)`` for a statement of your own.
///
/// Parameter indexes start at **1** and column indexes at **0**, as in SQLite's C API.
///
/// ```swift
/// let insert = try connection.cachedStatement("INSERT INTO nodes(id, state, payload) VALUES (?, ?, ?)")
/// try insert.bind(node.id, at: 1)
/// try insert.bind("waiting", at: 2)
/// try insert.bind(payloadBytes, at: 3)
/// try insert.execute()
///
/// let select = try connection.cachedStatement("SELECT id, state FROM nodes WHERE instance = :instance")
/// try select.bind(instanceID, named: ":instance")
/// try select.forEachRow { row in
///     handle(id: row.int64(at: 0), state: row.text(at: 1))
/// }
/// ```
///
/// The convenience runners (``execute()``, ``forEachRow(_:)``, ``fetchAll()``,
/// ``fetchFirst()``) reset the statement when they return or throw, which ends its read of
/// the database; bindings stay until ``clearBindings()`` or the next checkout from the cache.
/// With ``step()`` you drive the statement yourself: call ``reset()`` when done, because a
/// statement left mid-way keeps its read transaction open.
///
/// - Important: Confined like its ``SQLiteConnection``: use it on the connection's thread
///   only, and not after the connection is gone (the database closes when the last
///   statement is released).
public final class SQLiteStatement {
    /// The connection's handle; keeps the database open while this statement exists.
    let handle: SQLiteHandle
    /// The `sqlite3_stmt*`, finalized in `deinit`.
    let statement: OpaquePointer
    /// The SQL text, exactly as given when preparing.
    public let sql: String
    /// Whether `sqlite3_step` ran since the last `sqlite3_reset`; skips needless resets.
    private var needsReset = false
    /// Set while ``forEachRow(_:)`` runs, so the cache does not hand out this statement to
    /// code inside the loop body.
    var isIterating = false

    /// Prepares `sql`, which must hold exactly one statement.
    ///
    /// - Parameters:
    ///   - handle: the connection's handle.
    ///   - sql: one SQL statement.
    ///   - persistent: `SQLITE_PREPARE_PERSISTENT`, a hint for statements kept in the cache.
    /// - Throws: ``SQLiteError`` when SQLite cannot compile `sql`, or (as `SQLITE_MISUSE`)
    ///   when it holds no statement or more than one.
    init(handle: SQLiteHandle, sql: String, persistent: Bool) throws(SQLiteError) {
        let flags = UInt32(persistent ? SQLITE_PREPARE_PERSISTENT : 0)
        var prepared: OpaquePointer?
        var hasTrailingStatement = false
        let resultCode = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let resultCode = sqlite3_prepare_v3(handle.database, text, -1, flags, &prepared, &tail)
            if resultCode == SQLITE_OK, let tail {
                hasTrailingStatement = Self.containsStatement(tail, database: handle.database)
            }
            return resultCode
        }
        guard resultCode == SQLITE_OK else {
            throw handle.error(resultCode, sql: sql)
        }
        guard let prepared else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "no SQL statement to prepare", sql: sql)
        }
        guard !hasTrailingStatement else {
            sqlite3_finalize(prepared)
            throw SQLiteError(
                extendedCode: SQLITE_MISUSE,
                message: "more than one SQL statement; use execute(_:) for scripts",
                sql: sql
            )
        }
        self.handle = handle
        self.statement = prepared
        self.sql = sql
    }

    /// Adopts a statement prepared elsewhere (a statement of a script).
    ///
    /// - Parameters:
    ///   - handle: the connection's handle.
    ///   - prepared: a `sqlite3_stmt*` this object now owns and finalizes.
    init(handle: SQLiteHandle, prepared: OpaquePointer) {
        self.handle = handle
        self.statement = prepared
        self.sql = sqlite3_sql(prepared).map { String(cString: $0) } ?? ""
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Whether the text after a prepared statement holds another statement (anything but
    /// whitespace, semicolons and comments).
    private static func containsStatement(_ tail: UnsafePointer<CChar>, database: OpaquePointer) -> Bool {
        var cursor = tail
        while cursor.pointee != 0 {
            switch UInt8(bitPattern: cursor.pointee) {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: ";"):
                cursor += 1
            default:
                // Rare path: let SQLite decide whether the rest is only comments.
                var extra: OpaquePointer?
                let resultCode = sqlite3_prepare_v2(database, cursor, -1, &extra, nil)
                sqlite3_finalize(extra)
                return resultCode != SQLITE_OK || extra != nil
            }
        }
        return false
    }

    /// The number of parameters (`?`, `?NNN`, `:name`, `@name`, `$name`); the largest index.
    public var parameterCount: Int {
        Int(sqlite3_bind_parameter_count(statement))
    }

    /// The number of result columns; 0 for statements that return no rows.
    public var columnCount: Int {
        Int(sqlite3_column_count(statement))
    }

    /// The name of a result column: its `AS` alias, or what SQLite chooses without one.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the name.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func columnName(at index: Int) -> String {
        precondition(index >= 0 && index < columnCount, "column index \(index) out of range")
        return sqlite3_column_name(statement, Int32(index)).map { String(cString: $0) } ?? ""
    }

    /// Whether the statement leaves the database unchanged
    /// ([sqlite3_stmt_readonly](https://www.sqlite.org/c3ref/stmt_readonly.html)).
    public var isReadOnly: Bool {
        sqlite3_stmt_readonly(statement) != 0
    }

    /// Runs the statement one step.
    ///
    /// Consults the connection's ``SQLiteConnection/faultInjector`` first, if one is set.
    ///
    /// ```swift
    /// while try statement.step() {
    ///     total += statement.int64(at: 0)
    /// }
    /// statement.reset()
    /// ```
    ///
    /// - Returns: `true` when a row is available (read it with the column accessors),
    ///   `false` when the statement has finished.
    /// - Throws: ``SQLiteError`` when SQLite fails (busy, constraint, I/O error, interrupt,
    ///   …) or the fault injector throws. The statement then needs ``reset()`` before its
    ///   next run; the convenience runners do that for you.
    public func step() throws(SQLiteError) -> Bool {
        if let faultInjector = handle.faultInjector {
            try faultInjector(.step(sql: sql))
        }
        return try stepWithoutFaultCheck()
    }

    /// ``step()`` without consulting the fault injector, for transaction control.
    func stepWithoutFaultCheck() throws(SQLiteError) -> Bool {
        needsReset = true
        let resultCode = sqlite3_step(statement)
        switch resultCode {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw handle.error(resultCode, sql: sql)
        }
    }

    /// Rewinds the statement so it can run again, keeping its bindings
    /// ([sqlite3_reset](https://www.sqlite.org/c3ref/reset.html)).
    ///
    /// Cheap when the statement has not run since the last reset. Never throws: the error of
    /// a failed step was already thrown by that step.
    public func reset() {
        if needsReset {
            sqlite3_reset(statement)
            needsReset = false
        }
    }

    /// Sets every parameter back to `NULL`
    /// ([sqlite3_clear_bindings](https://www.sqlite.org/c3ref/clear_bindings.html)).
    public func clearBindings() {
        sqlite3_clear_bindings(statement)
    }

    /// Resets and clears bindings: the state of a statement fresh out of the cache.
    func prepareForReuse() {
        reset()
        clearBindings()
    }

    /// Runs the statement to completion, ignoring any rows, then resets it.
    ///
    /// ```swift
    /// let update = try connection.cachedStatement("UPDATE nodes SET state = ? WHERE id = ?")
    /// try update.bind("done", at: 1)
    /// try update.bind(nodeID, at: 2)
    /// try update.execute()
    /// ```
    ///
    /// - Throws: ``SQLiteError`` when a step fails; the statement is reset either way.
    public func execute() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    /// Calls `body` once per result row, then resets the statement.
    ///
    /// The row is a view of the statement's current position: read what you need inside
    /// `body` and do not keep the row. Reading integers and doubles allocates nothing.
    ///
    /// ```swift
    /// try statement.forEachRow { row in
    ///     ids.append(row.int64(at: 0))
    /// }
    /// ```
    ///
    /// - Parameter body: called with each row; throw to stop early.
    /// - Throws: ``SQLiteError`` when a step fails, or whatever `body` throws. The statement
    ///   is reset either way.
    public func forEachRow(_ body: (SQLiteRow) throws -> Void) throws {
        isIterating = true
        defer {
            isIterating = false
            reset()
        }
        let row = SQLiteRow(statement: self)
        while try step() {
            try body(row)
        }
    }

    /// Runs the statement and returns every row as values, then resets it.
    ///
    /// Meant for small results; use ``forEachRow(_:)`` for large ones.
    ///
    /// - Returns: one array of ``SQLiteValue`` per row, one value per column.
    /// - Throws: ``SQLiteError`` when a step fails; the statement is reset either way.
    public func fetchAll() throws(SQLiteError) -> [[SQLiteValue]] {
        defer { reset() }
        var rows: [[SQLiteValue]] = []
        let row = SQLiteRow(statement: self)
        while try step() {
            rows.append(row.values)
        }
        return rows
    }

    /// Runs the statement up to its first row and returns it, then resets the statement.
    ///
    /// - Returns: the first row's values, or `nil` when there is no row.
    /// - Throws: ``SQLiteError`` when the step fails; the statement is reset either way.
    public func fetchFirst() throws(SQLiteError) -> [SQLiteValue]? {
        defer { reset() }
        return try step() ? SQLiteRow(statement: self).values : nil
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
