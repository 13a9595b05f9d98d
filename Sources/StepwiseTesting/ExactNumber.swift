import StepwiseJSON

/// Exact ordering of JSON numbers, integers and doubles mixed, without rounding through `Double`
/// (`9007199254740993 > 9007199254740992.0` holds).
enum ExactNumber {
    /// -1, 0 or 1 as `a` is less than, equal to or greater than `b`; `nil` unless both are numbers.
    static func compare(_ a: JSONValue, _ b: JSONValue) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)):
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .integer(let y)):
            return compare(double: x, integer: y)
        case (.integer(let x), .double(let y)):
            return -compare(double: y, integer: x)
        default:
            return nil
        }
    }

    private static func compare(double d: Double, integer i: Int64) -> Int {
        if d >= 9.223372036854775808e18 { return 1 }
        if d < -9.223372036854775808e18 { return -1 }
        let whole = d.rounded(.down)
        let wholeInteger = Int64(whole)
        if wholeInteger != i { return wholeInteger < i ? -1 : 1 }
        return d > whole ? 1 : 0
    }
}
