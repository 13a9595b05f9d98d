/// The current row of a ``SQLiteStatement`` during ``SQLiteStatement/forEachRow(_:)``.
///
/// A row is a view, not a copy: it reads the statement's current position, so use it inside
/// the loop body only. Column indexes start at 0. `NULL` reads as 0, 0.0, `""` or `[]`
/// through the typed accessors; use ``isNull(at:)`` or ``value(at:)`` when `NULL` matters.
///
/// ```swift
/// try statement.forEachRow { row in
///     let id = row.int64(at: 0)
///     let label = row.isNull(at: 1) ? nil : row.text(at: 1)
/// }
/// ```
public struct SQLiteRow {
    /// The statement positioned on this row.
    let statement: SQLiteStatement

    /// The number of columns.
    public var columnCount: Int { statement.columnCount }

    /// Whether a column is `NULL`.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: `true` for `NULL`.
    public func isNull(at index: Int) -> Bool { statement.isNull(at: index) }

    /// A column as an integer (`NULL` reads as 0).
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the integer.
    public func int64(at index: Int) -> Int64 { statement.int64(at: index) }

    /// A column as an `Int` (`NULL` reads as 0).
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the integer.
    public func int(at index: Int) -> Int { statement.int(at: index) }

    /// A column as a Boolean: `true` for non-zero.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the Boolean.
    public func bool(at index: Int) -> Bool { statement.bool(at: index) }

    /// A column as a double (`NULL` reads as 0.0).
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the double.
    public func double(at index: Int) -> Double { statement.double(at: index) }

    /// A column as text (`NULL` reads as `""`).
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the text.
    public func text(at index: Int) -> String { statement.text(at: index) }

    /// A column as bytes (`NULL` reads as `[]`).
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: a copy of the bytes.
    public func blob(at index: Int) -> [UInt8] { statement.blob(at: index) }

    /// Calls `body` with a column's bytes, without copying them.
    ///
    /// - Parameters:
    ///   - index: the column, from 0.
    ///   - body: reads the bytes; valid only during the call.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    public func withUnsafeBytes<Result, Failure: Error>(
        at index: Int,
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try statement.withUnsafeBytes(at: index, body)
    }

    /// A column with its storage class.
    ///
    /// - Parameter index: the column, from 0.
    /// - Returns: the value.
    public func value(at index: Int) -> SQLiteValue { statement.value(at: index) }

    /// A column with its storage class, as ``value(at:)``.
    ///
    /// - Parameter index: the column, from 0.
    public subscript(index: Int) -> SQLiteValue { statement.value(at: index) }

    /// Every column, in order.
    public var values: [SQLiteValue] {
        (0..<columnCount).map { statement.value(at: $0) }
    }
}

@available(*, unavailable)
extension SQLiteRow: Sendable {}
