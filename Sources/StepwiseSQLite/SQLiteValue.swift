/// One SQLite value: what a column holds or a parameter receives.
///
/// The five cases are SQLite's [storage classes](https://www.sqlite.org/datatype3.html).
/// Literals build values, so binding lists read naturally:
///
/// ```swift
/// let rows = try connection.query(
///     "SELECT id FROM nodes WHERE instance = ? AND state = ? AND payload IS ?",
///     bindings: [42, "waiting", nil]
/// )
/// ```
///
/// `true` and `false` become the integers 1 and 0, as in SQLite.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double. SQLite stores NaN as `NULL`.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The integer, or `nil` for any other case (no conversion).
    public var int64Value: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The double, or `nil` for any other case (no conversion).
    public var doubleValue: Double? {
        if case .real(let value) = self { value } else { nil }
    }

    /// The text, or `nil` for any other case (no conversion).
    public var textValue: String? {
        if case .text(let value) = self { value } else { nil }
    }

    /// The bytes, or `nil` for any other case (no conversion).
    public var blobValue: [UInt8]? {
        if case .blob(let value) = self { value } else { nil }
    }

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { true } else { false }
    }
}

extension SQLiteValue {
    /// `.integer`, or `.null` for `nil`.
    ///
    /// - Parameter value: the integer, or `nil`.
    public init(_ value: Int64?) {
        self = value.map { .integer($0) } ?? .null
    }

    /// `.integer`, or `.null` for `nil`.
    ///
    /// - Parameter value: the integer, or `nil`.
    public init(_ value: Int?) {
        self = value.map { .integer(Int64($0)) } ?? .null
    }

    /// `.real`, or `.null` for `nil`.
    ///
    /// - Parameter value: the double, or `nil`.
    public init(_ value: Double?) {
        self = value.map { .real($0) } ?? .null
    }

    /// `.text`, or `.null` for `nil`.
    ///
    /// - Parameter value: the text, or `nil`.
    public init(_ value: String?) {
        self = value.map { .text($0) } ?? .null
    }

    /// `.integer(1)` for `true`, `.integer(0)` for `false`, or `.null` for `nil`.
    ///
    /// - Parameter value: the Boolean, or `nil`.
    public init(_ value: Bool?) {
        self = value.map { .integer($0 ? 1 : 0) } ?? .null
    }

    /// `.blob`, or `.null` for `nil`.
    ///
    /// - Parameter value: the bytes, or `nil`.
    public init(_ value: [UInt8]?) {
        self = value.map { .blob($0) } ?? .null
    }
}

extension SQLiteValue: ExpressibleByNilLiteral {
    /// `.null`.
    ///
    /// - Parameter nilLiteral: `nil`.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension SQLiteValue: ExpressibleByIntegerLiteral {
    /// `.integer`.
    ///
    /// - Parameter value: the literal.
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }
}

extension SQLiteValue: ExpressibleByFloatLiteral {
    /// `.real`.
    ///
    /// - Parameter value: the literal.
    public init(floatLiteral value: Double) {
        self = .real(value)
    }
}

extension SQLiteValue: ExpressibleByStringLiteral {
    /// `.text`.
    ///
    /// - Parameter value: the literal.
    public init(stringLiteral value: String) {
        self = .text(value)
    }
}

extension SQLiteValue: ExpressibleByBooleanLiteral {
    /// `.integer(1)` or `.integer(0)`.
    ///
    /// - Parameter value: the literal.
    public init(booleanLiteral value: Bool) {
        self = .integer(value ? 1 : 0)
    }
}

extension SQLiteValue: CustomStringConvertible {
    /// `NULL`, the number, the text in single quotes, or `<blob: N bytes>` (bytes are not
    /// printed, so large or secret blobs stay out of logs).
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let value): "<blob: \(value.count) bytes>"
        }
    }
}
