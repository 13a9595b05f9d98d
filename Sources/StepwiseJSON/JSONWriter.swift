/// Writes ``JSONValue`` as RFC 8259 text.
///
/// Output is deterministic: keys in insertion order (or sorted by UTF-8 bytes with
/// ``Options/sortedKeys``), doubles in their shortest round-trip form, non-ASCII characters as
/// raw UTF-8 and only `"`, `\` and control characters escaped.
///
/// ```swift
/// JSONWriter.string(["b": 1, "a": [true, nil]], options: .sortedKeys)  // {"a":[true,null],"b":1}
/// ```
public enum JSONWriter {
    /// Output choices.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Object keys sorted by their UTF-8 bytes (canonical output).
        public static let sortedKeys = Options(rawValue: 1)
        /// Doubles with no fractional part below 10²¹ written as integers (`1.0` → `1`, `1e16` →
        /// `10000000000000000`), the shortest digits padded with zeros past 2⁵³.
        public static let integralDoublesAsIntegers = Options(rawValue: 2)
        /// Indented with two spaces, `": "` between key and value.
        public static let prettyPrinted = Options(rawValue: 4)
    }

    /// The UTF-8 bytes of `value`.
    ///
    /// - Complexity: O(n) in the size of the output (O(n log n) per object with `sortedKeys`).
    public static func bytes(_ value: JSONValue, options: Options = []) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, options: options)
        return out
    }

    /// The JSON text of `value`.
    public static func string(_ value: JSONValue, options: Options = []) -> String {
        String(decoding: bytes(value, options: options), as: UTF8.self)
    }

    /// Appends the JSON text of `value` to `out`.
    public static func write(_ value: JSONValue, into out: inout [UInt8], options: Options = []) {
        writeValue(value, into: &out, options: options, indent: 0)
    }

    /// The number of bytes ``bytes(_:options:)`` would produce for `value`, counted without
    /// building the text, or `nil` as soon as the count passes `limit`.
    ///
    /// Lets a caller refuse (or charge for) a large serialisation before paying for it: the work
    /// done is proportional to `min(size, limit)`, whatever the size of the value.
    ///
    /// ```swift
    /// JSONWriter.byteCount(["a": [1, 2]], limit: 100)   // 11
    /// JSONWriter.byteCount(["a": [1, 2]], limit: 10)    // nil
    /// ```
    ///
    /// - Parameters:
    ///   - value: the value to measure.
    ///   - options: the options the text would be written with (key order does not change the size).
    ///   - limit: the largest count of interest.
    /// - Returns: the exact byte count, or `nil` when it exceeds `limit`.
    public static func byteCount(_ value: JSONValue, options: Options = [], limit: Int = .max) -> Int? {
        var counter = ByteCounter(limit: limit, options: options)
        return counter.add(value, indent: 0) ? counter.total : nil
    }

    /// Sums output sizes, stopping once the total passes the limit.
    private struct ByteCounter {
        let limit: Int
        let options: Options
        var total = 0
        /// Reused for writing doubles, whose shortest form is easiest to measure by writing it.
        var scratch: [UInt8] = []

        init(limit: Int, options: Options) {
            self.limit = limit
            self.options = options
        }

        /// Adds `n` bytes; `false` once over the limit.
        mutating func count(_ n: Int) -> Bool {
            total = total.addingReportingOverflow(n).overflow ? .max : total + n
            return total <= limit
        }

        /// Adds a newline and `indent` levels of two spaces when pretty-printing.
        mutating func newline(_ indent: Int) -> Bool {
            options.contains(.prettyPrinted) ? count(1 + 2 * indent) : true
        }

        mutating func add(_ value: JSONValue, indent: Int) -> Bool {
            switch value {
            case .null: return count(4)
            case .bool(let b): return count(b ? 4 : 5)
            case .integer(let i):
                return count(JSONWriter.decimalLength(i))
            case .double:
                scratch.removeAll(keepingCapacity: true)
                writeValue(value, into: &scratch, options: options, indent: 0)
                return count(scratch.count)
            case .string(let s):
                // The unescaped length first: a string that cannot fit is never scanned.
                guard count(s.utf8.count + 2) else { return false }
                return count(JSONWriter.escapeOverhead(s))
            case .array(let a):
                guard count(2 + Swift.max(a.count - 1, 0)) else { return false }
                for element in a {
                    guard newline(indent + 1), add(element, indent: indent + 1) else { return false }
                }
                return a.isEmpty ? true : newline(indent)
            case .object(let o):
                guard count(2 + Swift.max(o.count - 1, 0)) else { return false }
                let separator = options.contains(.prettyPrinted) ? 2 : 1
                for (k, v) in o {
                    guard newline(indent + 1), count(k.utf8.count + 2 + separator), count(JSONWriter.escapeOverhead(k)),
                        add(v, indent: indent + 1)
                    else { return false }
                }
                return o.isEmpty ? true : newline(indent)
            }
        }
    }

    /// The number of characters ``appendInteger(_:to:)`` writes for `value`.
    private static func decimalLength(_ value: Int64) -> Int {
        var magnitude = value.magnitude
        var digits = 1
        while magnitude >= 10 {
            magnitude /= 10
            digits += 1
        }
        return value < 0 ? digits + 1 : digits
    }

    /// The bytes ``appendString(_:to:)`` adds to `s` beyond its UTF-8 and its two quotes: one
    /// per two-character escape, five per `\u00XX`.
    private static func escapeOverhead(_ s: String) -> Int {
        var s = s
        return s.withUTF8 { bytes in
            var extra = 0
            for b in bytes where b < 0x20 || b == 0x22 || b == 0x5C {
                switch b {
                case 0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x08, 0x0C: extra += 1
                default: extra += 5
                }
            }
            return extra
        }
    }

    private static func newline(_ out: inout [UInt8], indent: Int) {
        out.append(0x0A)
        for _ in 0..<indent { out.append(0x20); out.append(0x20) }
    }

    private static func writeValue(_ value: JSONValue, into out: inout [UInt8], options: Options, indent: Int) {
        switch value {
        case .null:
            out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b):
            if b { out.append(contentsOf: [0x74, 0x72, 0x75, 0x65]) } else { out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65]) }
        case .integer(let i):
            appendInteger(i, to: &out)
        case .double(let d):
            appendDouble(d, to: &out, integralAsInteger: options.contains(.integralDoublesAsIntegers))
        case .string(let s):
            appendString(s, to: &out)
        case .array(let a):
            out.append(0x5B)
            let pretty = options.contains(.prettyPrinted)
            for (i, element) in a.enumerated() {
                if i > 0 { out.append(0x2C) }
                if pretty { newline(&out, indent: indent + 1) }
                writeValue(element, into: &out, options: options, indent: indent + 1)
            }
            if pretty && !a.isEmpty { newline(&out, indent: indent) }
            out.append(0x5D)
        case .object(let o):
            out.append(0x7B)
            let pretty = options.contains(.prettyPrinted)
            var first = true
            func member(_ key: String, _ v: JSONValue) {
                if !first { out.append(0x2C) }
                first = false
                if pretty { newline(&out, indent: indent + 1) }
                appendString(key, to: &out)
                out.append(0x3A)
                if pretty { out.append(0x20) }
                writeValue(v, into: &out, options: options, indent: indent + 1)
            }
            if options.contains(.sortedKeys) {
                for (k, v) in o.sortedByKey() { member(k, v) }
            } else {
                for (k, v) in o { member(k, v) }
            }
            if pretty && !o.isEmpty { newline(&out, indent: indent) }
            out.append(0x7D)
        }
    }

    /// Appends the decimal digits of `value`.
    package static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value == 0 {
            out.append(0x30)
            return
        }
        var magnitude = value.magnitude
        if value < 0 { out.append(0x2D) }
        // 20 digits hold UInt64.max.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var n = 0
            while magnitude > 0 {
                digits[n] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
                n += 1
            }
            while n > 0 {
                n -= 1
                out.append(digits[n])
            }
        }
    }

    /// Appends a finite double in shortest round-trip form; non-finite values become `null`.
    package static func appendDouble(_ d: Double, to out: inout [UInt8], integralAsInteger: Bool) {
        guard d.isFinite else {
            out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        if integralAsInteger, abs(d) < 9_007_199_254_740_992, let i = JSONValue.exactInt64(d) {
            appendInteger(i, to: &out)
            return
        }
        let text = d.description
        if integralAsInteger, abs(d) < 1e21, d.rounded(.towardZero) == d {
            appendWithoutExponent(text, to: &out)
            return
        }
        out.append(contentsOf: text.utf8)
    }

    /// Writes a large integral double's shortest digits without fraction or exponent, padded
    /// with zeros (`1e+16` → `10000000000000000`, `1.2345678901234567e+19` →
    /// `12345678901234567000`), as JavaScript writes numbers below 10²¹.
    private static func appendWithoutExponent(_ text: String, to out: inout [UInt8]) {
        let utf8 = Array(text.utf8)
        guard let e = utf8.firstIndex(of: UInt8(ascii: "e")), let exponent = Int(String(decoding: utf8[(e + 1)...], as: UTF8.self))
        else {
            // No exponent ("12345678901234567.0"): the integer part.
            out.append(contentsOf: utf8.prefix { $0 != UInt8(ascii: ".") })
            return
        }
        var mantissa = utf8[..<e]
        if mantissa.first == UInt8(ascii: "-") {
            out.append(UInt8(ascii: "-"))
            mantissa = mantissa.dropFirst()
        }
        let point = mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.endIndex
        var digits = Array(mantissa[..<point])
        if point < mantissa.endIndex { digits += mantissa[(point + 1)...] }
        let integerDigits = (point - mantissa.startIndex) + exponent
        // Integral, so the digits never run past the integer part; a trailing ".0" is dropped.
        while digits.count > integerDigits, digits.last == UInt8(ascii: "0") { digits.removeLast() }
        out.append(contentsOf: digits.prefix(integerDigits))
        if integerDigits > digits.count { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: integerDigits - digits.count)) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `s` as a quoted JSON string.
    package static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { bytes in
            var runStart = 0
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                if b >= 0x20 && b != 0x22 && b != 0x5C {
                    i += 1
                    continue
                }
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                out.append(0x5C)
                switch b {
                case 0x22: out.append(0x22)
                case 0x5C: out.append(0x5C)
                case 0x0A: out.append(0x6E)
                case 0x0D: out.append(0x72)
                case 0x09: out.append(0x74)
                case 0x08: out.append(0x62)
                case 0x0C: out.append(0x66)
                default:
                    out.append(contentsOf: [0x75, 0x30, 0x30])
                    out.append(hexDigits[Int(b >> 4)])
                    out.append(hexDigits[Int(b & 0xF)])
                }
                i += 1
                runStart = i
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
        }
        out.append(0x22)
    }
}
