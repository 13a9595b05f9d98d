internal import CSQLite

/// Owns one `sqlite3*` and the hooks every statement of the connection needs.
///
/// Both ``SQLiteConnection`` and each ``SQLiteStatement`` hold this object strongly, and it
/// holds neither back, so there is no cycle: the database closes when the connection and
/// every statement prepared on it are gone. That order means `sqlite3_close_v2` always finds
/// no unfinalized statement and really closes.
///
/// Confined like the connection; never shared across threads (only ``interruptHandle`` is).
final class SQLiteHandle {
    /// The connection, open until `deinit`.
    let database: OpaquePointer
    /// Given out by ``SQLiteConnection/interruptHandle``; invalidated before closing.
    let interruptHandle: SQLiteInterruptHandle
    /// See ``SQLiteConnection/faultInjector``.
    var faultInjector: SQLiteFaultInjector?
    /// See ``SQLiteConnection/statementTracer``. Reached from the C trace callback through an
    /// unretained pointer to `self`, valid because the callback can only run while the
    /// database (and so this object) is alive.
    var statementTracer: ((String) -> Void)?

    init(database: OpaquePointer) {
        self.database = database
        self.interruptHandle = SQLiteInterruptHandle(database: database)
    }

    deinit {
        interruptHandle.invalidate()
        // https://www.sqlite.org/c3ref/close.html
        // > If sqlite3_close_v2() is called with unfinalized prepared statements […] the
        // > database connection becomes an unusable "zombie" which will automatically be
        // > deallocated when the last prepared statement is finalized.
        // Every statement holds this object, so none is left; the result can only be OK.
        sqlite3_close_v2(database)
    }

    /// The current error of the connection as an ``SQLiteError``.
    ///
    /// - Parameters:
    ///   - resultCode: the code an API call returned (extended codes are enabled).
    ///   - sql: the statement involved, if any.
    func error(_ resultCode: Int32, sql: String?) -> SQLiteError {
        // sqlite3_errmsg describes the most recent failing call on this connection, which is
        // the one that returned `resultCode`: the connection is confined to this thread.
        let message = sqlite3_errmsg(database).map { String(cString: $0) } ?? "unknown error"
        return SQLiteError(extendedCode: resultCode, message: message, sql: sql)
    }

    /// Installs or removes the `sqlite3_trace_v2` callback, following ``statementTracer``.
    func updateTraceCallback() {
        guard statementTracer != nil else {
            sqlite3_trace_v2(database, 0, nil, nil)
            return
        }
        // https://www.sqlite.org/c3ref/c_trace.html
        // > SQLITE_TRACE_STMT […] The X argument is a pointer to a string which is the
        // > unexpanded SQL text of the prepared statement or an SQL comment that indicates
        // > the invocation of a trigger.
        // Unexpanded: bound values (possibly secrets) never reach the tracer.
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_trace_v2(database, UInt32(SQLITE_TRACE_STMT), { _, context, _, text in
            guard let context, let text else { return 0 }
            let handle = Unmanaged<SQLiteHandle>.fromOpaque(context).takeUnretainedValue()
            handle.statementTracer?(String(cString: text.assumingMemoryBound(to: CChar.self)))
            return 0
        }, context)
    }
}
