internal import CSQLite

// Binding values to parameters
// (https://www.sqlite.org/c3ref/bind_blob.html).
//
// Text and blobs are bound with SQLITE_TRANSIENT: SQLite copies the bytes before the call
// returns, because Swift only guarantees the buffer for the duration of the closure.

extension SQLiteStatement {
    /// Binds `NULL`.
    ///
    /// - Parameter index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` (`SQLITE_RANGE`) when `index` is out of range, or
    ///   (`SQLITE_MISUSE`) when the statement is running (call ``reset()`` first).
    public func bindNull(at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_null(statement, Self.position(index)))
    }

    /// Binds an integer.
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` when `index` is out of range or the statement is running.
    public func bind(_ value: Int64, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_int64(statement, Self.position(index), value))
    }

    /// Binds an integer.
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` when `index` is out of range or the statement is running.
    public func bind(_ value: Int, at index: Int) throws(SQLiteError) {
        try bind(Int64(value), at: index)
    }

    /// Binds a Boolean as the integer 1 or 0.
    ///
    /// - Parameters:
    ///   - value: the Boolean.
    ///   - index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` when `index` is out of range or the statement is running.
    public func bind(_ value: Bool, at index: Int) throws(SQLiteError) {
        try bind(Int64(value ? 1 : 0), at: index)
    }

    /// Binds a double. SQLite stores NaN as `NULL`.
    ///
    /// - Parameters:
    ///   - value: the double.
    ///   - index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` when `index` is out of range or the statement is running.
    public func bind(_ value: Double, at index: Int) throws(SQLiteError) {
        try check(sqlite3_bind_double(statement, Self.position(index), value))
    }

    /// Binds UTF-8 text (SQLite copies it).
    ///
    /// - Parameters:
    ///   - value: the text; may contain NUL characters.
    ///   - index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` when `index` is out of range, the statement is running, or
    ///   the text exceeds SQLite's length limit (`SQLITE_TOOBIG`).
    public func bind(_ value: String, at index: Int) throws(SQLiteError) {
        var text = value
        let resultCode = text.withUTF8 { buffer in
            guard let start = buffer.baseAddress, !buffer.isEmpty else {
                // A nil pointer would bind NULL: empty text needs a real (empty) C string.
                return sqlite3_bind_text64(
                    statement, Self.position(index), "", 0, stepwise_sqlite_transient(), UInt8(SQLITE_UTF8)
                )
            }
            return sqlite3_bind_text64(
                statement,
                Self.position(index),
                UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self),
                UInt64(buffer.count),
                stepwise_sqlite_transient(),
                UInt8(SQLITE_UTF8)
            )
        }
        try check(resultCode)
    }

    /// Binds bytes as a blob (SQLite copies them). An empty array binds an empty blob, not
    /// `NULL`.
    ///
    /// - Parameters:
    ///   - value: the bytes.
    ///   - index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` when `index` is out of range, the statement is running, or
    ///   the blob exceeds SQLite's length limit (`SQLITE_TOOBIG`).
    public func bind(_ value: [UInt8], at index: Int) throws(SQLiteError) {
        let resultCode = value.withUnsafeBytes { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_zeroblob(statement, Self.position(index), 0)
            }
            return sqlite3_bind_blob64(
                statement,
                Self.position(index),
                start,
                UInt64(bytes.count),
                stepwise_sqlite_transient()
            )
        }
        try check(resultCode)
    }

    /// Binds any ``SQLiteValue``.
    ///
    /// - Parameters:
    ///   - value: the value; `nil` literals bind `NULL`.
    ///   - index: the parameter, from 1.
    /// - Throws: ``SQLiteError`` when `index` is out of range or the statement is running.
    public func bind(_ value: SQLiteValue, at index: Int) throws(SQLiteError) {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let integer): try bind(integer, at: index)
        case .real(let real): try bind(real, at: index)
        case .text(let text): try bind(text, at: index)
        case .blob(let bytes): try bind(bytes, at: index)
        }
    }

    /// Binds `values` to parameters 1, 2, … in order.
    ///
    /// ```swift
    /// try statement.bind([42, "waiting", nil])
    /// ```
    ///
    /// - Parameter values: one value per parameter.
    /// - Throws: ``SQLiteError`` (`SQLITE_RANGE`) when the count differs from
    ///   ``parameterCount``, or when the statement is running.
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard values.count == parameterCount else {
            throw SQLiteError(
                extendedCode: SQLITE_RANGE,
                message: "expected \(parameterCount) bindings, got \(values.count)",
                sql: sql
            )
        }
        for (offset, value) in values.enumerated() {
            try bind(value, at: offset + 1)
        }
    }

    /// The index of a named parameter.
    ///
    /// - Parameter name: the name with its prefix, as written in the SQL: `:id`, `@id` or
    ///   `$id`.
    /// - Returns: the parameter's index, from 1.
    /// - Throws: ``SQLiteError`` (`SQLITE_RANGE`) when the statement has no such parameter.
    public func parameterIndex(named name: String) throws(SQLiteError) -> Int {
        let index = Int(sqlite3_bind_parameter_index(statement, name))
        guard index > 0 else {
            throw SQLiteError(extendedCode: SQLITE_RANGE, message: "no parameter named \(name)", sql: sql)
        }
        return index
    }

    /// Binds `NULL` to a named parameter.
    ///
    /// - Parameter name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter or the statement is running.
    public func bindNull(named name: String) throws(SQLiteError) {
        try bindNull(at: parameterIndex(named: name))
    }

    /// Binds an integer to a named parameter.
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter or the statement is running.
    public func bind(_ value: Int64, named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// Binds an integer to a named parameter.
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter or the statement is running.
    public func bind(_ value: Int, named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// Binds a Boolean (1 or 0) to a named parameter.
    ///
    /// - Parameters:
    ///   - value: the Boolean.
    ///   - name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter or the statement is running.
    public func bind(_ value: Bool, named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// Binds a double to a named parameter.
    ///
    /// - Parameters:
    ///   - value: the double.
    ///   - name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter or the statement is running.
    public func bind(_ value: Double, named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// Binds text to a named parameter.
    ///
    /// - Parameters:
    ///   - value: the text.
    ///   - name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter, the statement is running,
    ///   or the text is too big.
    public func bind(_ value: String, named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// Binds a blob to a named parameter.
    ///
    /// - Parameters:
    ///   - value: the bytes.
    ///   - name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter, the statement is running,
    ///   or the blob is too big.
    public func bind(_ value: [UInt8], named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// Binds any ``SQLiteValue`` to a named parameter.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - name: the name with its prefix (`:id`, `@id`, `$id`).
    /// - Throws: ``SQLiteError`` when there is no such parameter or the statement is running.
    public func bind(_ value: SQLiteValue, named name: String) throws(SQLiteError) {
        try bind(value, at: parameterIndex(named: name))
    }

    /// An index as SQLite's `int`; out-of-range values become an index SQLite rejects.
    private static func position(_ index: Int) -> Int32 {
        Int32(clamping: index)
    }

    /// Throws unless a bind call succeeded.
    private func check(_ resultCode: Int32) throws(SQLiteError) {
        guard resultCode == SQLITE_OK else {
            throw handle.error(resultCode, sql: sql)
        }
    }
}
