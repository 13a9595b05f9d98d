internal import CSQLite

extension SQLiteConnection {
    /// How a transaction takes its locks
    /// ([BEGIN TRANSACTION](https://www.sqlite.org/lang_transaction.html)).
    public enum TransactionKind: Sendable, Hashable, CaseIterable {
        /// `BEGIN DEFERRED`: no lock until the first read or write. A read transaction that
        /// later writes can fail with ``SQLiteError/isBusy`` without waiting, so prefer
        /// ``immediate`` for transactions that write.
        case deferred
        /// `BEGIN IMMEDIATE`: takes the write lock at once (waiting up to the busy timeout),
        /// so the transaction cannot fail later for lack of it. The default.
        case immediate
        /// `BEGIN EXCLUSIVE`: in WAL mode, the same as ``immediate``.
        case exclusive

        /// The statement that begins it.
        var beginSQL: String {
            switch self {
            case .deferred: "BEGIN DEFERRED"
            case .immediate: "BEGIN IMMEDIATE"
            case .exclusive: "BEGIN EXCLUSIVE"
            }
        }
    }

    /// Runs `body` in a transaction: `BEGIN`, `body`, then `COMMIT`; `ROLLBACK` if `body`
    /// throws or the commit fails, and rethrow.
    ///
    /// ```swift
    /// try connection.transaction {
    ///     try connection.execute("UPDATE nodes SET state = 'done' WHERE id = ?", bindings: [id])
    ///     try connection.execute("INSERT INTO events(node, kind) VALUES (?, 'done')", bindings: [id])
    /// }
    /// ```
    ///
    /// The ``faultInjector`` sees ``SQLiteFaultPoint/commit`` before `COMMIT` and
    /// ``SQLiteFaultPoint/didCommit`` after it succeeds.
    ///
    /// Transactions do not nest: use ``savepoint(_:_:)`` inside one. The rollback is skipped
    /// when SQLite already rolled back by itself (after some I/O errors, `SQLITE_FULL` or an
    /// interrupt); a failing rollback is ignored in favor of the original error.
    ///
    /// - Parameters:
    ///   - kind: how to take locks; default ``TransactionKind/immediate``.
    ///   - body: the work. Do not begin, commit or roll back transactions inside it.
    /// - Returns: what `body` returns.
    /// - Throws: ``SQLiteError`` (`SQLITE_MISUSE`, ``SQLiteError/isMisuse``) when a
    ///   transaction is already open, nothing is run or rolled back then; ``SQLiteError``
    ///   when `BEGIN` or `COMMIT` fails (busy, I/O, full disk) or the fault injector throws;
    ///   otherwise whatever `body` throws. After a throw, nothing of the transaction is
    ///   committed, except for a throw at ``SQLiteFaultPoint/didCommit``.
    public func transaction<Result>(
        _ kind: TransactionKind = .immediate,
        _ body: () throws -> Result
    ) throws -> Result {
        guard !isInTransaction else {
            throw SQLiteError(
                extendedCode: SQLITE_MISUSE,
                message: "cannot start a transaction within a transaction",
                sql: kind.beginSQL
            )
        }
        try runControlStatement(kind.beginSQL)
        let result: Result
        do {
            result = try body()
        } catch {
            rollbackIfNeeded()
            throw error
        }
        do throws(SQLiteError) {
            if let faultInjector {
                try faultInjector(.commit)
            }
            try runControlStatement("COMMIT")
        } catch {
            rollbackIfNeeded()
            throw error
        }
        if let faultInjector {
            try faultInjector(.didCommit)
        }
        return result
    }

    /// Runs `body` inside a savepoint of the current transaction: `SAVEPOINT`, `body`,
    /// `RELEASE`; if `body` throws, `ROLLBACK TO` and `RELEASE` undo only its work, and the
    /// error is rethrown while the enclosing transaction goes on.
    ///
    /// ```swift
    /// try connection.transaction {
    ///     try connection.execute("INSERT INTO log(line) VALUES ('start')", bindings: [])
    ///     try? connection.savepoint("optional") {
    ///         try connection.execute("INSERT INTO extras(x) VALUES (1)", bindings: [])
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: the savepoint's name (quoted for you).
    ///   - body: the work.
    /// - Returns: what `body` returns.
    /// - Throws: ``SQLiteError`` (`SQLITE_MISUSE`) outside a transaction, so that every
    ///   commit goes through ``transaction(_:_:)``; ``SQLiteError`` when a savepoint
    ///   statement fails; otherwise whatever `body` throws.
    public func savepoint<Result>(_ name: String, _ body: () throws -> Result) throws -> Result {
        let identifier = "\"" + String(name.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
        guard isInTransaction else {
            throw SQLiteError(
                extendedCode: SQLITE_MISUSE,
                message: "savepoint(_:_:) must run inside transaction(_:_:)",
                sql: "SAVEPOINT \(identifier)"
            )
        }
        try runControlStatement("SAVEPOINT \(identifier)")
        do {
            let result = try body()
            try runControlStatement("RELEASE \(identifier)")
            return result
        } catch {
            if isInTransaction {
                try? runControlStatement("ROLLBACK TO \(identifier)")
                try? runControlStatement("RELEASE \(identifier)")
            }
            throw error
        }
    }

    /// Runs a transaction control statement from the cache, bypassing the fault injector.
    private func runControlStatement(_ sql: String) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        _ = try statement.stepWithoutFaultCheck()
    }

    /// Rolls back the open transaction, if SQLite did not already; errors are ignored
    /// because the caller is already reporting the error that caused the rollback.
    private func rollbackIfNeeded() {
        if isInTransaction {
            try? runControlStatement("ROLLBACK")
        }
    }
}
