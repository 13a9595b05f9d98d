/// Parses RFC 8259 JSON text into ``JSONValue`` without recursion.
///
/// The parser is strict: a byte order mark, invalid UTF-8, unescaped control characters, lone
/// surrogate escapes, duplicate object keys, trailing data and numbers that do not fit a finite
/// `Double` are all errors carrying the byte offset. Nesting is bounded by
/// ``JSONParser/Limits/maxDepth`` before any value is built, so hostile input cannot exhaust the
/// stack.
///
/// ```swift
/// let value = try JSONParser.parse(Array(#"{"a": [1, 2.5]}"#.utf8))
/// ```
public enum JSONParser {
    /// Bounds the parser enforces.
    public struct Limits: Sendable, Hashable {
        /// Deepest accepted array/object nesting (the outermost container is depth 1).
        ///
        /// - Important: The parser never recurses, whatever the limit, but ``JSONValue`` is
        ///   destroyed, compared, hashed and written recursively. Limits above a few thousand
        ///   levels let through values whose destruction can exhaust a thread's stack.
        public var maxDepth: Int
        /// Creates limits.
        ///
        /// - Parameter maxDepth: deepest accepted nesting; 256 by default (SEMANTICS §1.1).
        public init(maxDepth: Int = 256) { self.maxDepth = maxDepth }
    }

    /// Parses one JSON document.
    ///
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - limits: nesting bound.
    /// - Returns: the value.
    /// - Throws: ``JSONParseError`` with code `invalid_json` or `too_deep_json`. Nothing else.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = bytes.withUnsafeBufferPointer { buffer in
            var state = ParserState(buffer: buffer, maxDepth: limits.maxDepth)
            do throws(JSONParseError) {
                return .success(try state.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses one JSON document from a string.
    ///
    /// ```swift
    /// let value = try JSONParser.parse(#"[true, null]"#)
    /// ```
    ///
    /// - Parameters:
    ///   - text: JSON text; its UTF-8 bytes are parsed.
    ///   - limits: nesting bound.
    /// - Returns: the value.
    /// - Throws: ``JSONParseError`` with code `invalid_json` or `too_deep_json`. Nothing else.
    public static func parse(_ text: String, limits: Limits = Limits()) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }
}

private enum ASCII {
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let slash: UInt8 = 0x2F
    static let comma: UInt8 = 0x2C
    static let colon: UInt8 = 0x3A
    static let openBracket: UInt8 = 0x5B
    static let closeBracket: UInt8 = 0x5D
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
    static let minus: UInt8 = 0x2D
    static let plus: UInt8 = 0x2B
    static let dot: UInt8 = 0x2E
    static let zero: UInt8 = 0x30
    static let nine: UInt8 = 0x39
}

/// One open array or object.
private struct Frame {
    let isObject: Bool
    /// Where this container's finished members start on the value stack.
    let valueStart: Int
    /// Where this object's member names start on the key stack.
    let keyStart: Int
    /// Positions of the member names, once the object passes ``JSONObject/indexThreshold``;
    /// handed to the finished object.
    var index: [JSONKey: Int]?
}

private struct ParserState: ~Copyable {
    let buffer: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var position = 0

    /// Open containers, innermost last.
    var frames: [Frame] = []
    /// Finished members of all open containers, outermost first.
    var values = MoveStack<JSONValue>(capacity: 64)
    /// Member names of all open objects, outermost first.
    var keys = MoveStack<JSONKey>(capacity: 32)

    init(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.buffer = buffer
        self.maxDepth = maxDepth
        frames.reserveCapacity(16)
    }

    func fail(_ message: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(code: .invalidJSON, offset: offset ?? position, message: message)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < buffer.count {
            switch buffer[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    func describeByte(at offset: Int) -> String {
        guard offset < buffer.count else { return "end of input" }
        let b = buffer[offset]
        if b >= 0x21 && b < 0x7F { return "character '\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF {
            throw fail("a byte order mark is not allowed", at: 0)
        }
        skipWhitespace()
        if position >= buffer.count { throw fail("empty document") }
        var value = try parseValueStart()
        while let isObject = frames.last?.isObject {
            values.push(consume value)
            skipWhitespace()
            guard position < buffer.count else {
                throw fail(isObject ? "unterminated object: expected ',' or '}'" : "unterminated array: expected ',' or ']'")
            }
            let b = buffer[position]
            if b == ASCII.comma {
                position += 1
                skipWhitespace()
                if isObject { try parseMemberKey() }
                value = try parseValueStart()
            } else if isObject && b == ASCII.closeBrace {
                position += 1
                let frame = frames.removeLast()
                let memberValues = values.popArray(from: frame.valueStart)
                let memberKeys = keys.popArray(from: frame.keyStart)
                value = .object(JSONObject(parsedKeys: memberKeys, values: memberValues, index: frame.index))
            } else if !isObject && b == ASCII.closeBracket {
                position += 1
                let frame = frames.removeLast()
                value = .array(values.popArray(from: frame.valueStart))
            } else if isObject {
                throw fail("expected ',' or '}' after an object member, found \(describeByte(at: position))")
            } else {
                throw fail("expected ',' or ']' after an array element, found \(describeByte(at: position))")
            }
        }
        skipWhitespace()
        if position < buffer.count {
            throw fail("unexpected \(describeByte(at: position)) after the end of the document")
        }
        return value
    }

    /// How many Unicode scalars of a key an error message quotes.
    static let shownKeyScalars = 64

    /// `key` as a message quotes it: whole up to ``shownKeyScalars`` Unicode scalars, else its
    /// first ``shownKeyScalars`` scalars and `…`, so that a hostile key never makes the message as
    /// large as the document.
    static func shownKey(_ key: String) -> String {
        let scalars = key.unicodeScalars
        var shown = String.UnicodeScalarView()
        var i = scalars.startIndex
        while i != scalars.endIndex {
            if shown.count == shownKeyScalars { return String(shown) + "…" }
            shown.append(scalars[i])
            i = scalars.index(after: i)
        }
        return key
    }

    /// Parses a key and its colon, leaving the position at the member's value; rejects a key
    /// the innermost object already has.
    mutating func parseMemberKey() throws(JSONParseError) {
        guard position < buffer.count else { throw fail("unterminated object: expected a member name") }
        guard buffer[position] == ASCII.quote else {
            throw fail("expected a member name in double quotes, found \(describeByte(at: position))")
        }
        let keyOffset = position
        let key = try parseKey()
        let top = frames.count - 1
        let keyStart = frames[top].keyStart
        let memberCount = keys.count - keyStart
        if frames[top].index != nil {
            if frames[top].index!.updateValue(memberCount, forKey: key) != nil {
                throw fail("duplicate key '\(Self.shownKey(key.string))'", at: keyOffset)
            }
        } else {
            var i = keys.count - 1
            while i >= keyStart {
                if keys[i] == key { throw fail("duplicate key '\(Self.shownKey(key.string))'", at: keyOffset) }
                i -= 1
            }
            if memberCount + 1 > JSONObject.indexThreshold {
                var index = [JSONKey: Int](minimumCapacity: 2 * JSONObject.indexThreshold)
                for j in 0..<memberCount { index[keys[keyStart + j]] = j }
                index[key] = memberCount
                frames[top].index = index
            }
        }
        skipWhitespace()
        guard position < buffer.count, buffer[position] == ASCII.colon else {
            throw fail("expected ':' after member name '\(key.string)', found \(describeByte(at: position))")
        }
        position += 1
        skipWhitespace()
        keys.push(key)
    }

    /// Parses a scalar, or opens containers until a scalar or an empty container completes.
    mutating func parseValueStart() throws(JSONParseError) -> JSONValue {
        while true {
            guard position < buffer.count else { throw fail("unexpected end of input, expected a value") }
            let b = buffer[position]
            switch b {
            case ASCII.openBrace, ASCII.openBracket:
                if frames.count >= maxDepth {
                    throw JSONParseError(
                        code: .tooDeep, offset: position,
                        message: "JSON nesting exceeds the limit of \(maxDepth)")
                }
                position += 1
                skipWhitespace()
                let isObject = b == ASCII.openBrace
                if position < buffer.count && buffer[position] == (isObject ? ASCII.closeBrace : ASCII.closeBracket) {
                    position += 1
                    return isObject ? .object(JSONObject()) : .array([])
                }
                frames.append(Frame(isObject: isObject, valueStart: values.count, keyStart: keys.count, index: nil))
                if isObject { try parseMemberKey() }
            case ASCII.quote:
                return .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                return .null
            case ASCII.minus, ASCII.zero...ASCII.nine:
                return try parseNumber()
            default:
                throw fail("unexpected \(describeByte(at: position)), expected a value")
            }
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = position
        let count = literal.utf8CodeUnitCount
        guard buffer.count - position >= count else { throw fail("invalid literal", at: start) }
        let ptr = literal.utf8Start
        for i in 0..<count where buffer[position + i] != ptr[i] {
            throw fail("invalid literal, expected '\(literal)'", at: start)
        }
        position += count
    }

    /// Parses a number (RFC 8259 §6) starting at `-` or a digit.
    ///
    /// Integers that fit `Int64` stay exact. Other numbers whose significand has at most 19
    /// digits, is at most 2⁵³ and whose decimal exponent is within ±22 are computed exactly with
    /// one correctly rounded multiplication or division (Clinger's fast path); the rest go
    /// through the standard library's correctly rounded conversion.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var negative = false
        if buffer[position] == ASCII.minus {
            negative = true
            position += 1
        }
        guard position < buffer.count, Self.isDigit(buffer[position]) else {
            throw fail("invalid number: expected a digit", at: start)
        }
        // All significant digits, as long as they fit.
        var mantissa: UInt64 = 0
        var mantissaExact = true
        if buffer[position] == ASCII.zero {
            position += 1
            if position < buffer.count, Self.isDigit(buffer[position]) {
                throw fail("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            while position < buffer.count, Self.isDigit(buffer[position]) {
                Self.accumulate(buffer[position], into: &mantissa, exact: &mantissaExact)
                position += 1
            }
        }
        var isInteger = true
        var fractionDigits = 0
        if position < buffer.count, buffer[position] == ASCII.dot {
            isInteger = false
            position += 1
            let fractionStart = position
            while position < buffer.count, Self.isDigit(buffer[position]) {
                Self.accumulate(buffer[position], into: &mantissa, exact: &mantissaExact)
                position += 1
            }
            fractionDigits = position - fractionStart
            if fractionDigits == 0 { throw fail("invalid number: expected a digit after '.'", at: start) }
        }
        var exponent = 0
        if position < buffer.count, buffer[position] == UInt8(ascii: "e") || buffer[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            var exponentNegative = false
            if position < buffer.count, buffer[position] == ASCII.plus || buffer[position] == ASCII.minus {
                exponentNegative = buffer[position] == ASCII.minus
                position += 1
            }
            let exponentStart = position
            while position < buffer.count, Self.isDigit(buffer[position]) {
                // Saturate: anything this large is out of the fast path's range anyway.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(buffer[position] - ASCII.zero) }
                position += 1
            }
            if position == exponentStart {
                throw fail("invalid number: expected a digit in the exponent", at: start)
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger && mantissaExact {
            if !negative && mantissa <= UInt64(Int64.max) { return .integer(Int64(mantissa)) }
            if negative && mantissa <= UInt64(Int64.max) + 1 {
                return .integer(mantissa == UInt64(Int64.max) + 1 ? Int64.min : -Int64(mantissa))
            }
        }
        if mantissaExact && mantissa <= 1 << 53 {
            let decimalExponent = exponent - fractionDigits
            if decimalExponent >= -22 && decimalExponent <= 22 {
                var d = Double(mantissa)
                if decimalExponent >= 0 {
                    d *= Self.exactPowersOfTen[decimalExponent]
                } else {
                    d /= Self.exactPowersOfTen[-decimalExponent]
                }
                return .double(negative ? -d : d)
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            let shown = text.utf8.count > 40 ? String(text.prefix(40)) + "…" : text
            throw fail("number \(shown) is out of range", at: start)
        }
        return .double(d)
    }

    /// 10⁰ … 10²², each exactly representable as a `Double`.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- ASCII.zero < 10 }

    @inline(__always)
    static func accumulate(_ digit: UInt8, into mantissa: inout UInt64, exact: inout Bool) {
        guard exact else { return }
        let (m1, o1) = mantissa.multipliedReportingOverflow(by: 10)
        let (m2, o2) = m1.addingReportingOverflow(UInt64(digit - ASCII.zero))
        if o1 || o2 { exact = false } else { mantissa = m2 }
    }

    /// Parses a member name starting at its opening quote, fingerprinting it from the input
    /// bytes when it has no escapes.
    mutating func parseKey() throws(JSONParseError) -> JSONKey {
        let start = position + 1
        let string = try parseString()
        let end = position - 1
        if let base = buffer.baseAddress, end - start == string.utf8.count {
            // No escapes: the bytes between the quotes are the key's bytes.
            return JSONKey(string, bytes: UnsafeBufferPointer(start: base + start, count: end - start))
        }
        return JSONKey(string)
    }

    /// Parses a string starting at its opening quote.
    ///
    /// Scans eight bytes at a time while none is a quote, a backslash or a control character;
    /// strings with escapes take ``parseEscapedString(from:)``. Non-ASCII text is validated
    /// once, by the standard library, and scanned again only to locate an error.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        let end = buffer.count
        guard let base = buffer.baseAddress else { throw fail("unterminated string", at: start - 1) }
        var sawNonASCII = false
        while true {
            // Eight bytes at a time; stop exactly at the first quote, backslash or control byte.
            while position &+ 8 <= end {
                let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                let attention = Self.attentionMask(word)
                if attention == 0 {
                    if word & 0x8080_8080_8080_8080 != 0 { sawNonASCII = true }
                    position &+= 8
                    continue
                }
                // The lowest flagged byte is a true match (false positives only sit above one).
                let bit = attention.trailingZeroBitCount
                let before: UInt64 = (1 << UInt64(bit & ~7)) &- 1
                if word & before & 0x8080_8080_8080_8080 != 0 { sawNonASCII = true }
                position &+= bit >> 3
                break
            }
            guard position < end else { break }
            let b = base[position]
            if b == ASCII.quote {
                let slice = UnsafeBufferPointer(start: base + start, count: position - start)
                if !sawNonASCII {
                    position += 1
                    return String(decoding: slice, as: UTF8.self)
                }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw fail("invalid UTF-8", at: start + (Self.firstInvalidUTF8(slice) ?? 0))
                }
                position += 1
                return string
            }
            if b == ASCII.backslash { return try parseEscapedString(from: start) }
            if b < 0x20 {
                if sawNonASCII { try checkUTF8(from: start) }
                throw fail("unescaped control character in a string")
            }
            if b >= 0x80 { sawNonASCII = true }
            position += 1
        }
        if sawNonASCII { try checkUTF8(from: start) }
        throw fail("unterminated string", at: start - 1)
    }

    /// The high bit of each byte of `word` (little-endian) that may be `"`, `\\` or below 0x20;
    /// zero exactly when none is, and the lowest set bit always marks a true match.
    @inline(__always)
    static func attentionMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & 0x8080_8080_8080_8080
    }

    /// Throws `invalid UTF-8` at the first ill-formed sequence between `from` and the position.
    func checkUTF8(from: Int) throws(JSONParseError) {
        let slice = UnsafeBufferPointer(rebasing: buffer[from..<position])
        if let bad = Self.firstInvalidUTF8(slice) { throw fail("invalid UTF-8", at: from + bad) }
    }

    /// Slow path for strings with escapes: rebuilds the bytes.
    mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(position - start + 16)
        var segmentStart = start
        while position < buffer.count {
            let b = buffer[position]
            if b == ASCII.quote {
                try appendSegment(from: segmentStart, to: &bytes)
                position += 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if b < 0x20 {
                try checkUTF8(from: segmentStart)
                throw fail("unescaped control character in a string")
            }
            if b != ASCII.backslash {
                position += 1
                continue
            }
            try appendSegment(from: segmentStart, to: &bytes)
            let escapeStart = position
            position += 1
            segmentStart = position
            guard position < buffer.count else { break }
            let e = buffer[position]
            position += 1
            switch e {
            case ASCII.quote: bytes.append(ASCII.quote)
            case ASCII.backslash: bytes.append(ASCII.backslash)
            case ASCII.slash: bytes.append(ASCII.slash)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4(escapeStart: escapeStart)
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    guard position + 1 < buffer.count, buffer[position] == ASCII.backslash,
                        buffer[position + 1] == UInt8(ascii: "u")
                    else { throw fail("lone high surrogate \\u\(hex4(scalar))", at: escapeStart) }
                    let lowStart = position
                    position += 2
                    let low = try parseHex4(escapeStart: lowStart)
                    guard low >= 0xDC00 && low <= 0xDFFF else {
                        throw fail("lone high surrogate \\u\(hex4(scalar))", at: escapeStart)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    throw fail("lone low surrogate \\u\(hex4(scalar))", at: escapeStart)
                }
                Self.appendUTF8(UInt32(scalar), to: &bytes)
            default:
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))'", at: escapeStart)
            }
            segmentStart = position
        }
        try checkUTF8(from: segmentStart)
        throw fail("unterminated string", at: start - 1)
    }

    /// Appends the raw bytes from `from` to the position, after checking they are UTF-8.
    func appendSegment(from: Int, to bytes: inout [UInt8]) throws(JSONParseError) {
        try checkUTF8(from: from)
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[from..<position]))
    }

    func hex4(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    mutating func parseHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        guard position + 4 <= buffer.count else { throw fail("invalid \\u escape: expected 4 hex digits", at: escapeStart) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = buffer[position]
            let d: UInt32
            switch c {
            case ASCII.zero...ASCII.nine: d = UInt32(c - ASCII.zero)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape: expected 4 hex digits", at: escapeStart)
            }
            v = v << 4 | d
            position += 1
        }
        return v
    }

    static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            bytes.append(UInt8(scalar))
        case 0x80..<0x800:
            bytes.append(UInt8(0xC0 | (scalar >> 6)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            bytes.append(UInt8(0xE0 | (scalar >> 12)))
            bytes.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            bytes.append(UInt8(0xF0 | (scalar >> 18)))
            bytes.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// The offset of the first byte that breaks UTF-8 well-formedness (RFC 3629), or `nil`.
    static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            var need = 0
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; upper = 0x9F
            case 0xF0: need = 3; lower = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; upper = 0x8F
            default: return i
            }
            if i + need >= n { return i }
            let b1 = bytes[i + 1]
            if b1 < lower || b1 > upper { return i }
            var k = 2
            while k <= need {
                let bk = bytes[i + k]
                if bk < 0x80 || bk > 0xBF { return i }
                k += 1
            }
            i += need + 1
        }
        return nil
    }
}
