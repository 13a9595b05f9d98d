import StepwiseCrypto
import StepwiseJSON

/// The implementations of the built-in functions (SEMANTICS §3.7), on evaluated arguments.
enum FunctionLibrary {
    /// Array functions return null for arrays with more elements.
    static let maximumArrayCount = 100_000
    /// `json()` returns null for longer text.
    static let maximumJSONBytes = 4 * 1024 * 1024

    static func abs(_ x: JSONValue) -> JSONValue {
        guard let n = ValueSemantics.number(x) else { return .null }
        return ValueSemantics.numberValue(Swift.abs(n))
    }

    static func len(_ x: JSONValue) -> JSONValue {
        switch x {
        case .array(let a): return .integer(Int64(a.count))
        case .object(let o): return .integer(Int64(o.count))
        case .string(let s): return .integer(Int64(s.utf8.count))
        default: return .integer(0)
        }
    }

    /// `json(x)`: charged one unit per value it writes (every array element, object member and
    /// scalar) and one per 64 bytes of the text, both counted before any text is written, so a
    /// value that shares one large element many times (`json([data, data, …])`) runs out of
    /// budget after at most the budget's worth of work, and text over 4 MiB is never built.
    static func json(_ x: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        let options: JSONWriter.Options = [.sortedKeys, .integralDoublesAsIntegers]
        var values = 0
        guard countValues(x, &values, limit: budget.remaining) else { throw budget.exhaust() }
        try budget.charge(values)
        guard let size = JSONWriter.byteCount(x, options: options, limit: budget.affordableBytes) else {
            throw budget.exhaust()
        }
        try budget.chargeBytes(size)
        guard size <= maximumJSONBytes else { return .null }
        return .string(JSONWriter.string(x, options: options))
    }

    /// Adds the number of values in `x` (itself, and recursively its elements and members) to
    /// `count`; `false` as soon as `count` passes `limit`, so the walk is bounded by the limit.
    private static func countValues(_ x: JSONValue, _ count: inout Int, limit: Int) -> Bool {
        count += 1
        guard count <= limit else { return false }
        switch x {
        case .array(let a):
            for e in a where !countValues(e, &count, limit: limit) { return false }
        case .object(let o):
            for (_, v) in o where !countValues(v, &count, limit: limit) { return false }
        default:
            break
        }
        return true
    }

    /// A random (version 4, RFC 4122 variant) UUID in lowercase from `source`.
    static func uuid(_ source: RandomSource) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let high = source.next()
        let low = source.next()
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Hex.encode(bytes)
        let u = Array(hex.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, b) in u.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A double truncated toward zero into Int64, saturating at the bounds.
    static func truncatedInteger(_ d: Double) -> Int64 {
        let t = d.rounded(.towardZero)
        if t >= 9.223372036854775807e18 { return Int64.max }
        if t <= -9.223372036854775808e18 { return Int64.min }
        return Int64(t)
    }

    static func random(_ lo: JSONValue?, _ hi: JSONValue?, _ source: RandomSource) -> JSONValue {
        var minimum: Int64 = 0
        var maximum: Int64 = 100
        if let lo {
            guard let n = ValueSemantics.number(lo) else { return .null }
            minimum = truncatedInteger(n)
        }
        if let hi {
            guard let n = ValueSemantics.number(hi) else { return .null }
            maximum = truncatedInteger(n)
        }
        guard maximum > minimum else { return .integer(minimum) }
        let span = UInt64(bitPattern: maximum &- minimum)
        let offset = source.next() % span
        return .integer(minimum &+ Int64(bitPattern: offset))
    }

    static func keys(_ x: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard case .object(let o) = x else { return .array([]) }
        try budget.charge(o.count)
        return .array(o.sortedByKey().map { .string($0.key) })
    }

    static func values(_ x: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard case .object(let o) = x else { return .array([]) }
        try budget.charge(o.count)
        return .array(o.sortedByKey().map(\.value))
    }

    static func contains(_ h: JSONValue, _ n: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        switch (h, n) {
        case (.array(let a), _):
            guard a.count <= maximumArrayCount else { return .null }
            try budget.charge(a.count)
            return .bool(a.contains(n))
        case (.string(let s), .string(let t)):
            // The search is linear: it touches each haystack byte a bounded number of times,
            // and the needle once to prepare.
            try budget.chargeBytes(s.utf8.count + t.utf8.count)
            return .bool(ValueSemantics.containsBytes(s, t))
        default:
            return .bool(false)
        }
    }

    static func startsWith(_ s: JSONValue, _ p: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard case .string(let x) = s, case .string(let y) = p else { return .bool(false) }
        try budget.chargeBytes(y.utf8.count)
        return .bool(ValueSemantics.hasPrefixBytes(x, y))
    }

    static func endsWith(_ s: JSONValue, _ p: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard case .string(let x) = s, case .string(let y) = p else { return .bool(false) }
        try budget.chargeBytes(y.utf8.count)
        return .bool(ValueSemantics.hasSuffixBytes(x, y))
    }

    /// The array argument of an array function, charged per element; `nil` when not an array
    /// or over the size limit.
    private static func elements(_ x: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> [JSONValue]? {
        guard case .array(let a) = x, a.count <= maximumArrayCount else { return nil }
        try budget.charge(a.count)
        return a
    }

    static func sum(_ x: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard let a = try elements(x, &budget) else { return .null }
        var total = 0.0
        for e in a {
            if let n = ValueSemantics.number(e) { total += n }
        }
        return ValueSemantics.numberValue(total)
    }

    static func average(_ x: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard let a = try elements(x, &budget) else { return .null }
        var total = 0.0
        var count = 0
        for e in a {
            if let n = ValueSemantics.number(e) {
                total += n
                count += 1
            }
        }
        guard count > 0 else { return .null }
        return ValueSemantics.numberValue(total / Double(count))
    }

    static func extreme(_ x: JSONValue, largest: Bool, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard let a = try elements(x, &budget) else { return .null }
        var best: Double?
        for e in a {
            guard let n = ValueSemantics.number(e) else { continue }
            if let b = best {
                if largest ? n > b : n < b { best = n }
            } else {
                best = n
            }
        }
        guard let best else { return .null }
        return ValueSemantics.numberValue(best)
    }

    static func element(_ x: JSONValue, last: Bool, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard case .array(let a) = x, a.count <= maximumArrayCount else { return .null }
        try budget.charge(1)
        return (last ? a.last : a.first) ?? .null
    }

    /// A slice bound: truncated, negatives → 0, clamped to `count`; `nil` when not a number.
    private static func bound(_ x: JSONValue?, default value: Int, count: Int) -> Int? {
        guard let x else { return value }
        guard let n = ValueSemantics.number(x) else { return nil }
        let t = truncatedInteger(n)
        if t < 0 { return 0 }
        return t > Int64(count) ? count : Int(t)
    }

    static func slice(
        _ x: JSONValue, _ start: JSONValue?, _ end: JSONValue?, _ budget: inout CostBudget
    ) throws(EvaluationFailure) -> JSONValue {
        guard case .array(let a) = x, a.count <= maximumArrayCount else { return .null }
        guard let lo = bound(start, default: 0, count: a.count), let hi = bound(end, default: a.count, count: a.count)
        else { return .null }
        guard lo < hi else { return .array([]) }
        try budget.charge(hi - lo)
        return .array(Array(a[lo..<hi]))
    }

    /// The sort rank of §3.7: null < bool < number < string < array < object.
    private static func rank(_ v: JSONValue) -> Int {
        switch v {
        case .null: 0
        case .bool: 1
        case .integer, .double: 2
        case .string: 3
        case .array: 4
        case .object: 5
        }
    }

    /// Orders two values for `sort`: by rank, numbers by value, strings by bytes, others tie.
    private static func order(_ a: JSONValue, _ b: JSONValue) -> Int {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.integer, _), (.double, _):
            return ValueSemantics.compareNumbers(a, b)
        case (.string(let x), .string(let y)):
            return ValueSemantics.compareBytes(x, y)
        default:
            return 0
        }
    }

    static func sort(_ x: JSONValue, _ order: JSONValue?, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard case .array(let a) = x, a.count <= maximumArrayCount else { return .null }
        var descending = false
        if let order {
            switch order {
            case .string("asc"): descending = false
            case .string("desc"): descending = true
            default: return .null
            }
        }
        try budget.charge(a.count)
        // Stable: ties keep their original order.
        let sortedIndices = a.indices.sorted { i, j in
            let o = Self.order(a[i], a[j])
            return o != 0 ? o < 0 : i < j
        }
        var result = sortedIndices.map { a[$0] }
        if descending { result.reverse() }
        return .array(result)
    }

    static func unique(_ x: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard let a = try elements(x, &budget) else { return .null }
        var seen = Set<JSONValue>()
        var result: [JSONValue] = []
        for e in a where seen.insert(e).inserted {
            result.append(e)
        }
        return .array(result)
    }

    static func count(_ x: JSONValue, _ needle: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        guard case .array(let a) = x else { return .integer(0) }
        guard a.count <= maximumArrayCount else { return .null }
        try budget.charge(a.count)
        var n: Int64 = 0
        for e in a where e == needle { n += 1 }
        return .integer(n)
    }

    static func changePercent(_ old: JSONValue, _ new: JSONValue) -> JSONValue {
        guard let o = ValueSemantics.number(old), let n = ValueSemantics.number(new), o != 0 else { return .null }
        return ValueSemantics.numberValue((n - o) / o * 100)
    }

    static func clamp(_ v: JSONValue, _ lo: JSONValue, _ hi: JSONValue) throws(EvaluationFailure) -> JSONValue {
        let l = ValueSemantics.number(lo)
        let h = ValueSemantics.number(hi)
        if let l, let h, l > h {
            throw EvaluationFailure(
                message: "clamp: lo \(ValueSemantics.describeNumber(l)) is greater than hi \(ValueSemantics.describeNumber(h))")
        }
        guard let x = ValueSemantics.number(v), let l, let h else { return v }
        return ValueSemantics.numberValue(Swift.min(Swift.max(x, l), h))
    }
}
