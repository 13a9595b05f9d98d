internal import CSQLite

// Reading the current row (https://www.sqlite.org/c3ref/column_blob.html).
//
// Valid after step() returned true and until the next step() or reset(). NULL reads as 0,
// 0.0, "" or [] (SQLite's own conversions); use isNull(at:) or value(at:) when NULL matters.

extension SQLiteStatement {
    /// Whether a column of the current row is `NULL`.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: `true` for `NULL`.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(statement, column(index)) == SQLITE_NULL
    }

    /// A column of the current row as an integer; `NULL` reads as 0, other types convert as
    /// in SQLite's `CAST(x AS INTEGER)`.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the integer.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(statement, column(index))
    }

    /// A column of the current row as an `Int` (see ``int64(at:)``).
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the integer.
    /// - Precondition: `index` is in `0..<columnCount`, and the value fits in `Int`.
    public func int(at index: Int) -> Int {
        Int(int64(at: index))
    }

    /// A column of the current row as a Boolean: `true` for any non-zero integer.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the Boolean; `NULL` reads as `false`.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func bool(at index: Int) -> Bool {
        int64(at: index) != 0
    }

    /// A column of the current row as a double; `NULL` reads as 0.0.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the double.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func double(at index: Int) -> Double {
        sqlite3_column_double(statement, column(index))
    }

    /// A column of the current row as text; `NULL` reads as `""`, numbers as their text.
    ///
    /// Invalid UTF-8 (only possible in blobs read as text) is repaired with U+FFFD.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the text.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func text(at index: Int) -> String {
        let position = column(index)
        // Per the SQLite docs, call sqlite3_column_text() first, then sqlite3_column_bytes().
        guard let start = sqlite3_column_text(statement, position) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, position))
        return String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    }

    /// A column of the current row as bytes; `NULL` reads as `[]`, text as its UTF-8 bytes.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: a copy of the bytes.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func blob(at index: Int) -> [UInt8] {
        withUnsafeBytes(at: index) { [UInt8]($0) }
    }

    /// Calls `body` with the bytes of a column of the current row, without copying them.
    ///
    /// Use it to decode a blob (or text, as UTF-8) in place, for example with a JSON parser.
    ///
    /// ```swift
    /// let state = try statement.withUnsafeBytes(at: 2) { try NodeState(decoding: $0) }
    /// ```
    ///
    /// - Parameters:
    ///   - index: the column, from 0.
    ///   - body: reads the bytes; they are valid only during the call. Empty for `NULL`.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func withUnsafeBytes<Result, Failure: Error>(
        at index: Int,
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let position = column(index)
        // Per the SQLite docs, call sqlite3_column_blob() first, then sqlite3_column_bytes().
        let start = sqlite3_column_blob(statement, position)
        let count = Int(sqlite3_column_bytes(statement, position))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
    }

    /// A column of the current row with its storage class.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the value; allocates for text and blobs.
    /// - Precondition: `index` is in `0..<columnCount`.
    public func value(at index: Int) -> SQLiteValue {
        switch sqlite3_column_type(statement, column(index)) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(text(at: index))
        case SQLITE_BLOB: .blob(blob(at: index))
        default: .null
        }
    }

    /// A checked column index as SQLite's `int`.
    private func column(_ index: Int) -> Int32 {
        precondition(index >= 0 && index < Int(sqlite3_column_count(statement)), "column index \(index) out of range")
        return Int32(truncatingIfNeeded: index)
    }
}
