import StepwiseJSON

/// The coercions and comparisons of SEMANTICS §3.5–§3.6, shared by operators, functions and
/// template filters.
enum ValueSemantics {
    /// to-number (§3.5): numbers as is, decimal strings, `true`/`false` as 1/0; anything else
    /// (null, arrays, objects, other strings) has no number.
    @inline(__always)
    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        case .string(let s): return decimalNumber(s)
        default: return nil
        }
    }

    /// A string's number: optional sign, digits, optional `.digits`, optional exponent, nothing
    /// else; `nil` for anything else or a value that does not fit a double.
    static func decimalNumber(_ s: String) -> Double? {
        var utf8 = s.utf8.makeIterator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        while let b = utf8.next() { bytes.append(b) }
        guard isDecimal(bytes) else { return nil }
        guard let d = Double(s), d.isFinite else { return nil }
        return d
    }

    private static func isDecimal(_ b: [UInt8]) -> Bool {
        var i = 0
        let n = b.count
        if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < n, isDigit(b[i]) { i += 1 }
        guard i > digitsStart else { return false }
        if i < n, b[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < n, isDigit(b[i]) { i += 1 }
            guard i > fractionStart else { return false }
        }
        if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < n, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let exponentStart = i
            while i < n, isDigit(b[i]) { i += 1 }
            guard i > exponentStart else { return false }
        }
        return i == n
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// A numeric result as a JSON value: non-finite results become `null` (§3.5).
    @inline(__always)
    static func numberValue(_ d: Double) -> JSONValue {
        d.isFinite ? .double(d) : .null
    }

    /// `==` (§3.6): same type and value, recursively; numbers by value; strings by bytes.
    @inline(__always)
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool { a == b }

    /// The relational operators of §3.6: number/number by value, string/string by UTF-8 bytes;
    /// every other pair is false for all four.
    static func compare(_ a: JSONValue, _ b: JSONValue, _ op: RelationalOperator) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            return op.holds(x < y ? -1 : (x == y ? 0 : 1))
        case (.integer, .double), (.double, .integer), (.double, .double):
            return op.holds(compareNumbers(a, b))
        case (.string(let x), .string(let y)):
            return op.holds(compareBytes(x, y))
        default:
            return false
        }
    }

    /// -1, 0 or 1 comparing two numbers by value, exactly: an integer and a double are not
    /// compared as doubles (2^53 + 1 is greater than 2^53.0, as `==` already says they differ).
    static func compareNumbers(_ a: JSONValue, _ b: JSONValue) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .integer(let y)): return -compare(y, x)
        case (.double(let x), .double(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        default: return 0
        }
    }

    /// -1, 0 or 1 comparing an integer with a finite double exactly.
    private static func compare(_ i: Int64, _ d: Double) -> Int {
        // 2^63 as a double: every double at or past it exceeds every Int64, and every double
        // below -2^63 is less; between them the truncated double fits an Int64.
        if d >= 9_223_372_036_854_775_808.0 { return -1 }
        if d < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = d.rounded(.towardZero)
        let w = Int64(whole)
        if i != w { return i < w ? -1 : 1 }
        let fraction = d - whole
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    /// -1, 0 or 1 comparing UTF-8 bytes (= Unicode scalar order), eight bytes at a time: the
    /// relational operators are charged one unit whatever the strings' length (§3.9), so a
    /// comparison must cost little per byte.
    static func compareBytes(_ x: String, _ y: String) -> Int { compareUTF8(x, y) }

    /// Compact JSON with sorted keys and integral numbers without fraction: `json()` and the
    /// inline template rendering of non-strings.
    static func compactJSON(_ value: JSONValue) -> String {
        JSONWriter.string(value, options: [.sortedKeys, .integralDoublesAsIntegers])
    }

    /// Strings raw, anything else as ``compactJSON(_:)``.
    static func text(_ value: JSONValue) -> String {
        if case .string(let s) = value { return s }
        return compactJSON(value)
    }

    /// A number written for a message: integral values without fraction.
    static func describeNumber(_ d: Double) -> String {
        compactJSON(.double(d))
    }

    /// Whether `needle` occurs in `haystack`, comparing UTF-8 bytes, in linear time.
    static func containsBytes(_ haystack: String, _ needle: String) -> Bool {
        ByteSearch.contains(needle, in: haystack)
    }

    /// Whether `s` starts with `prefix`, comparing UTF-8 bytes.
    static func hasPrefixBytes(_ s: String, _ prefix: String) -> Bool {
        let su = s.utf8, pu = prefix.utf8
        guard pu.count <= su.count else { return false }
        return su.prefix(pu.count).elementsEqual(pu)
    }

    /// Whether `s` ends with `suffix`, comparing UTF-8 bytes.
    static func hasSuffixBytes(_ s: String, _ suffix: String) -> Bool {
        let su = s.utf8, xu = suffix.utf8
        guard xu.count <= su.count else { return false }
        return su.suffix(xu.count).elementsEqual(xu)
    }
}

/// `<`, `<=`, `>`, `>=`.
enum RelationalOperator: Sendable {
    case less, lessOrEqual, greater, greaterOrEqual

    /// Whether the operator holds for a three-way comparison result.
    @inline(__always)
    func holds(_ order: Int) -> Bool {
        switch self {
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }
}
