internal import CSQLite
import Synchronization

/// A thread-safe way to interrupt a ``SQLiteConnection`` from any thread or task.
///
/// A connection is confined to one thread at a time, so it cannot be shared; its handle can.
/// Calling ``interrupt()`` makes the operation running on the connection fail soon with an
/// ``SQLiteError`` whose ``SQLiteError/isInterrupted`` is `true` (see
/// [sqlite3_interrupt](https://www.sqlite.org/c3ref/interrupt.html)). Once the connection
/// is closed, the handle does nothing.
///
/// ```swift
/// let handle = connection.interruptHandle
/// try await withTaskCancellationHandler {
///     try connection.execute(longRunningSQL)
/// } onCancel: {
///     handle.interrupt()
/// }
/// ```
public final class SQLiteInterruptHandle: Sendable {
    /// The `sqlite3*` as a bit pattern, or 0 once closed. The lock makes ``interrupt()``
    /// and closing mutually exclusive: SQLite forbids interrupting a connection that is
    /// closing.
    private let database: Mutex<Int>

    init(database: OpaquePointer) {
        self.database = Mutex(Int(bitPattern: database))
    }

    /// Asks SQLite to stop the connection's running statements at the next opportunity.
    ///
    /// Statements running when this is called fail with `SQLITE_INTERRUPT`; an `INSERT`,
    /// `UPDATE` or `DELETE` inside an explicit transaction rolls the whole transaction back.
    /// When no statement is running, SQLite ignores the call. Safe from any thread; a no-op
    /// after the connection is closed.
    public func interrupt() {
        database.withLock { bits in
            if let handle = OpaquePointer(bitPattern: bits) {
                sqlite3_interrupt(handle)
            }
        }
    }

    /// Makes later ``interrupt()`` calls no-ops; called just before the connection closes.
    func invalidate() {
        database.withLock { $0 = 0 }
    }
}
