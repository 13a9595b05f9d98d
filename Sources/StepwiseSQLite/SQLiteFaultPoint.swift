/// A place where a ``SQLiteConnection`` consults its ``SQLiteConnection/faultInjector``.
///
/// Crash-point tests number these points and fail (or end the process) at the Nth one, then
/// reopen the database and check that recovery is correct. Counting ``commit`` points counts
/// the engine's commit boundaries: every commit made through
/// ``SQLiteConnection/transaction(_:_:)`` passes through exactly one ``commit`` and, when it
/// succeeds, one ``didCommit``.
///
/// ```swift
/// var commits = 0
/// connection.faultInjector = { (point) throws(SQLiteError) in
///     if case .commit = point {
///         commits += 1
///         if commits == crashAt { _exit(9) }   // the torture harness's choice
///     }
/// }
/// ```
public enum SQLiteFaultPoint: Sendable, Hashable {
    /// Before each `sqlite3_step()` of a statement: every step of
    /// ``SQLiteStatement/step()``, of the statement-running conveniences, and of each
    /// statement of a script given to ``SQLiteConnection/execute(_:)``. The transaction
    /// control statements that ``SQLiteConnection/transaction(_:_:)`` runs itself (`BEGIN`,
    /// `COMMIT`, `ROLLBACK`) are not reported here. The payload is the statement's SQL text.
    case step(sql: String)
    /// Before ``SQLiteConnection/transaction(_:_:)`` runs `COMMIT`. A throw here rolls the
    /// transaction back and is rethrown: nothing of the transaction is committed.
    case commit
    /// Right after `COMMIT` succeeded: the transaction is durable (as configured). A throw
    /// here is rethrown from ``SQLiteConnection/transaction(_:_:)`` although the data is
    /// committed, which is what a crash between commit and the caller's next step looks like.
    case didCommit
}

/// The fault hook of ``SQLiteConnection/faultInjector``: it may throw an ``SQLiteError``
/// (for example ``SQLiteError/injectedFault(_:extendedCode:)``) to simulate a failure, or
/// end the process to simulate a crash.
public typealias SQLiteFaultInjector = (SQLiteFaultPoint) throws(SQLiteError) -> Void
