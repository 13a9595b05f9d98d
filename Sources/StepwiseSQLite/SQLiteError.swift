/// A failure reported by SQLite, or by this wrapper on SQLite's behalf.
///
/// `extendedCode` is SQLite's [extended result code](https://www.sqlite.org/rescode.html#extrc)
/// (extended codes are always enabled on a ``SQLiteConnection``) and ``code`` the primary code
/// in its low 8 bits. `message` is the text of `sqlite3_errmsg()` at the time of the failure,
/// and `sql` the statement that failed. Bound arguments are never recorded: they may hold
/// secrets, and errors end up in logs.
///
/// Classify with the `is…` properties rather than comparing numbers:
///
/// ```swift
/// do {
///     try connection.execute("INSERT INTO instances(dedup_key) VALUES (?)", bindings: ["k1"])
/// } catch {
///     if error.isConstraint { /* duplicate submission */ }
///     print(error)
///     // SQLite error 19 (SQLITE_CONSTRAINT_UNIQUE, extended 2067): UNIQUE constraint failed:
///     // instances.dedup_key — while running: INSERT INTO instances(dedup_key) VALUES (?)
/// }
/// ```
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code, for example 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    ///
    /// Equal to ``code`` when SQLite reported no extension.
    public let extendedCode: Int32
    /// What went wrong, as SQLite words it (`sqlite3_errmsg()`), or as this wrapper words it
    /// for failures it detects itself. Wording varies between SQLite versions: match on codes.
    public let message: String
    /// The SQL text of the statement that failed, without bound arguments; `nil` when the
    /// failure is not tied to a statement (opening a file, for example).
    public let sql: String?

    /// Creates an error.
    ///
    /// Use this to simulate failures, for example from a fault injector
    /// (see ``SQLiteConnection/faultInjector``).
    ///
    /// - Parameters:
    ///   - extendedCode: a primary or extended SQLite result code.
    ///   - message: what went wrong, for a person.
    ///   - sql: the statement that failed, if any. Never include bound arguments.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// An `SQLITE_IOERR` (10) error marked as injected, for crash-point and fault tests.
    ///
    /// ```swift
    /// connection.faultInjector = { (point) throws(SQLiteError) in
    ///     if case .commit = point { throw SQLiteError.injectedFault() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - message: what the test simulates.
    ///   - extendedCode: the code to report; `SQLITE_IOERR` (10) by default.
    /// - Returns: the error.
    public static func injectedFault(
        _ message: String = "injected fault",
        extendedCode: Int32 = 10
    ) -> SQLiteError {
        SQLiteError(extendedCode: extendedCode, message: message)
    }

    /// The primary result code: the low 8 bits of ``extendedCode``, for example 19
    /// (`SQLITE_CONSTRAINT`).
    public var code: Int32 { extendedCode & 0xFF }

    /// The symbolic name of ``extendedCode``, for example `SQLITE_CONSTRAINT_UNIQUE`, falling
    /// back to the primary code's name for extensions this wrapper does not know.
    public var codeName: String {
        Self.name(of: extendedCode) ?? Self.name(of: code) ?? "SQLITE_UNKNOWN"
    }

    /// `SQLITE_BUSY`: another connection (often in another process) holds a lock this one
    /// needs, and the busy timeout expired. Usually worth retrying later.
    public var isBusy: Bool { code == 5 }
    /// `SQLITE_LOCKED`: a conflict inside this same connection (or a shared cache), for
    /// example dropping a table while a statement reads it.
    public var isLocked: Bool { code == 6 }
    /// `SQLITE_READONLY`: a write on a read-only connection or file.
    public var isReadOnly: Bool { code == 8 }
    /// `SQLITE_INTERRUPT`: the operation was stopped by ``SQLiteConnection/interrupt()``.
    public var isInterrupted: Bool { code == 9 }
    /// `SQLITE_IOERR`: the operating system reported an I/O error (or a fault was injected).
    public var isIOError: Bool { code == 10 }
    /// `SQLITE_CORRUPT` or `SQLITE_NOTADB`: the file is damaged, or not a database at all.
    public var isCorrupt: Bool { code == 11 || code == 26 }
    /// `SQLITE_FULL`: the disk (or the database's size limit) is full.
    public var isFull: Bool { code == 13 }
    /// `SQLITE_CONSTRAINT`: a `UNIQUE`, `NOT NULL`, `CHECK`, foreign key or primary key
    /// constraint failed. ``extendedCode`` tells which kind.
    public var isConstraint: Bool { code == 19 }
    /// `SQLITE_MISUSE`: the API was used against its contract, for example nesting
    /// ``SQLiteConnection/transaction(_:_:)``.
    public var isMisuse: Bool { code == 21 }

    /// `SQLite error <code> (<name>[, extended <extendedCode>]): <message>[ — while running: <sql>]`.
    public var description: String {
        var text = "SQLite error \(code) (\(codeName)"
        if extendedCode != code {
            text += ", extended \(extendedCode)"
        }
        text += "): \(message)"
        if let sql {
            text += " — while running: \(sql)"
        }
        return text
    }
}
