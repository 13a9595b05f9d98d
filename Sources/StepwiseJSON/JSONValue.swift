/// A JSON value as Stepwise reads, stores and evaluates it.
///
/// Numbers keep the distinction the wire format makes: a token without a fraction or exponent
/// that fits in 64 bits is an ``integer``, any other number a ``double``. Equality compares
/// numbers by value at every depth (`1 == 1.0`) and objects by key set, ignoring key order.
/// Strings and keys compare by their Unicode scalars (UTF-8 bytes), never by Swift's canonical
/// equivalence, so `"é"` (U+00E9) and `"e\u{301}"` differ, as they do in JSON.
///
/// ```swift
/// let value: JSONValue = ["name": "onboarding", "version": 1]
/// value["version"]   // .integer(1)
/// ```
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// Any other (finite) number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object whose keys keep their insertion order.
    case object(JSONObject)
}

extension JSONValue {
    /// The JSON type name used in error messages: `null`, `boolean`, `integer`, `number`,
    /// `string`, `array` or `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The string payload, or `nil` for any other case.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The boolean payload, or `nil` for any other case.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The array payload, or `nil` for any other case.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The object payload, or `nil` for any other case.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The numeric value as a `Double` for both number cases, else `nil`.
    public var numberValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The value as an exact `Int64`: an integer, or a double with no fractional part in range.
    ///
    /// ```swift
    /// JSONValue.double(3.0).exactIntegerValue   // 3
    /// JSONValue.double(3.5).exactIntegerValue   // nil
    /// ```
    public var exactIntegerValue: Int64? {
        switch self {
        case .integer(let i):
            return i
        case .double(let d):
            return JSONValue.exactInt64(d)
        default:
            return nil
        }
    }

    /// `d` as an `Int64` when it is integral and in range, else `nil` (also for NaN).
    ///
    /// Written without `rounded(_:)` or `Int64(exactly:)`: both call libm's `trunc`, which an
    /// executable that links no C math library cannot resolve once the call is inlined into it.
    @inline(__always)
    package static func exactInt64(_ d: Double) -> Int64? {
        guard d >= -9.223372036854775808e18, d < 9.223372036854775808e18 else { return nil }
        let i = Int64(d)  // truncates toward zero
        return Double(i) == d ? i : nil
    }

    /// The member `key` of an object; `nil` when this is not an object or the key is absent.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The element at `index` of an array; `nil` when this is not an array or out of range.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

extension JSONValue: Equatable {
    /// JSON equality: same type and value, recursively; numbers by value at every depth;
    /// strings by UTF-8 bytes; objects by key set regardless of order.
    ///
    /// ```swift
    /// JSONValue.integer(1) == .double(1.0)          // true
    /// ([1, 2] as JSONValue) == [1.0, 2.0]           // true
    /// (["a": 1, "b": 2] as JSONValue) == ["b": 2, "a": 1]  // true
    /// ```
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)):
            return JSONValue.integer(a).exactlyEquals(double: b)
        case (.string(let a), .string(let b)): return JSONKey.sameBytes(a, b)
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }

    private func exactlyEquals(double d: Double) -> Bool {
        guard case .integer(let i) = self else { return false }
        // Compare exactly: convert the double to Int64 only when it is integral and in range.
        return JSONValue.exactInt64(d) == i
    }
}

extension JSONValue: Hashable {
    /// Hashes consistently with `==`: integral doubles hash like the equal integer.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .integer(let i): hasher.combine(2); hasher.combine(i)
        case .double(let d):
            if let i = self.exactIntegerValue {
                hasher.combine(2); hasher.combine(i)
            } else {
                hasher.combine(3); hasher.combine(d)
            }
        case .string(let s): hasher.combine(4); JSONKey.hashBytes(of: s, into: &hasher)
        case .array(let a): hasher.combine(5); hasher.combine(a)
        case .object(let o):
            hasher.combine(6)
            hasher.combine(o.count)
            // Order-independent combination, as equality ignores key order.
            var sum = 0
            for (k, v) in o {
                var h = Hasher()
                JSONKey.hashBytes(of: k, into: &h)
                h.combine(v)
                sum = sum &+ h.finalize()
            }
            hasher.combine(sum)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` as ``JSONValue/null``.
    public init(nilLiteral: ()) { self = .null }
    /// `true` or `false` as ``JSONValue/bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal as ``JSONValue/integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point literal as ``JSONValue/double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string literal as ``JSONValue/string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal as ``JSONValue/array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal as ``JSONValue/object(_:)``, keys in literal order; a repeated key
    /// keeps its first position and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var o = JSONObject(minimumCapacity: elements.count)
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON text.
    public var description: String { JSONWriter.string(self) }
}
