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
        public var maxDepth: Int
        /// Creates limits.
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
    /// - Throws: ``JSONParseError``.
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

private struct ParserState {
    let buffer: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var position = 0

    // Container stacks kept apart so appends mutate in place.
    var isObjectStack: [Bool] = []
    var arrays: [[JSONValue]] = []
    var objects: [JSONObject] = []
    var pendingKeys: [(key: String, offset: Int)] = []

    init(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.buffer = buffer
        self.maxDepth = maxDepth
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
        while true {
            guard let isObject = isObjectStack.last else { break }
            if isObject {
                let pending = pendingKeys.removeLast()
                objects[objects.count - 1].appendNew(key: pending.key, value: value)
                skipWhitespace()
                guard position < buffer.count else { throw fail("unterminated object: expected ',' or '}'") }
                let b = buffer[position]
                if b == ASCII.comma {
                    position += 1
                    skipWhitespace()
                    try parseMemberKey()
                    value = try parseValueStart()
                } else if b == ASCII.closeBrace {
                    position += 1
                    isObjectStack.removeLast()
                    value = .object(objects.removeLast())
                } else {
                    throw fail("expected ',' or '}' after an object member, found \(describeByte(at: position))")
                }
            } else {
                arrays[arrays.count - 1].append(value)
                skipWhitespace()
                guard position < buffer.count else { throw fail("unterminated array: expected ',' or ']'") }
                let b = buffer[position]
                if b == ASCII.comma {
                    position += 1
                    skipWhitespace()
                    value = try parseValueStart()
                } else if b == ASCII.closeBracket {
                    position += 1
                    isObjectStack.removeLast()
                    value = .array(arrays.removeLast())
                } else {
                    throw fail("expected ',' or ']' after an array element, found \(describeByte(at: position))")
                }
            }
        }
        skipWhitespace()
        if position < buffer.count {
            throw fail("unexpected \(describeByte(at: position)) after the end of the document")
        }
        return value
    }

    /// Parses a key and its colon, leaving the position at the member's value.
    mutating func parseMemberKey() throws(JSONParseError) {
        guard position < buffer.count else { throw fail("unterminated object: expected a member name") }
        guard buffer[position] == ASCII.quote else {
            throw fail("expected a member name in double quotes, found \(describeByte(at: position))")
        }
        let keyOffset = position
        let key = try parseString()
        if objects[objects.count - 1].contains(key) {
            throw fail("duplicate key '\(key)'", at: keyOffset)
        }
        skipWhitespace()
        guard position < buffer.count, buffer[position] == ASCII.colon else {
            throw fail("expected ':' after member name '\(key)', found \(describeByte(at: position))")
        }
        position += 1
        skipWhitespace()
        pendingKeys.append((key, keyOffset))
    }

    /// Parses a scalar, or opens containers until a scalar or an empty container completes.
    mutating func parseValueStart() throws(JSONParseError) -> JSONValue {
        while true {
            guard position < buffer.count else { throw fail("unexpected end of input, expected a value") }
            let b = buffer[position]
            switch b {
            case ASCII.openBrace, ASCII.openBracket:
                if isObjectStack.count >= maxDepth {
                    throw JSONParseError(
                        code: .tooDeep, offset: position,
                        message: "JSON nesting exceeds the limit of \(maxDepth)")
                }
                position += 1
                skipWhitespace()
                if b == ASCII.openBrace {
                    if position < buffer.count && buffer[position] == ASCII.closeBrace {
                        position += 1
                        return .object(JSONObject())
                    }
                    isObjectStack.append(true)
                    objects.append(JSONObject())
                    try parseMemberKey()
                } else {
                    if position < buffer.count && buffer[position] == ASCII.closeBracket {
                        position += 1
                        return .array([])
                    }
                    isObjectStack.append(false)
                    arrays.append([])
                }
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

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var negative = false
        if buffer[position] == ASCII.minus {
            negative = true
            position += 1
        }
        guard position < buffer.count, buffer[position] >= ASCII.zero, buffer[position] <= ASCII.nine else {
            throw fail("invalid number: expected a digit", at: start)
        }
        var magnitude: UInt64 = 0
        var overflow = false
        if buffer[position] == ASCII.zero {
            position += 1
            if position < buffer.count, buffer[position] >= ASCII.zero, buffer[position] <= ASCII.nine {
                throw fail("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            while position < buffer.count, buffer[position] >= ASCII.zero, buffer[position] <= ASCII.nine {
                let digit = UInt64(buffer[position] - ASCII.zero)
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (m2, o2) = m1.addingReportingOverflow(digit)
                if o1 || o2 { overflow = true } else { magnitude = m2 }
                position += 1
            }
        }
        var isInteger = true
        if position < buffer.count, buffer[position] == ASCII.dot {
            isInteger = false
            position += 1
            let fractionStart = position
            while position < buffer.count, buffer[position] >= ASCII.zero, buffer[position] <= ASCII.nine {
                position += 1
            }
            if position == fractionStart { throw fail("invalid number: expected a digit after '.'", at: start) }
        }
        if position < buffer.count, buffer[position] == UInt8(ascii: "e") || buffer[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < buffer.count, buffer[position] == ASCII.plus || buffer[position] == ASCII.minus {
                position += 1
            }
            let exponentStart = position
            while position < buffer.count, buffer[position] >= ASCII.zero, buffer[position] <= ASCII.nine {
                position += 1
            }
            if position == exponentStart {
                throw fail("invalid number: expected a digit in the exponent", at: start)
            }
        }
        if isInteger && !overflow {
            if !negative && magnitude <= UInt64(Int64.max) { return .integer(Int64(magnitude)) }
            if negative && magnitude <= UInt64(Int64.max) + 1 {
                return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
            }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<position]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw fail("number \(text) is out of range", at: start)
        }
        return .double(d)
    }

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(JSONParseError) -> String {
        position += 1
        let start = position
        var sawNonASCII = false
        while position < buffer.count {
            let b = buffer[position]
            if b == ASCII.quote {
                let slice = UnsafeBufferPointer(rebasing: buffer[start..<position])
                if sawNonASCII, let bad = Self.firstInvalidUTF8(slice) {
                    throw fail("invalid UTF-8", at: start + bad)
                }
                position += 1
                return String(decoding: slice, as: UTF8.self)
            }
            if b == ASCII.backslash { return try parseEscapedString(from: start) }
            if b < 0x20 { throw fail("unescaped control character in a string") }
            if b >= 0x80 { sawNonASCII = true }
            position += 1
        }
        throw fail("unterminated string", at: start - 1)
    }

    /// Slow path for strings with escapes: rebuilds the bytes.
    mutating func parseEscapedString(from start: Int) throws(JSONParseError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(position - start + 16)
        var segmentStart = start
        func flush(_ state: ParserState, _ bytes: inout [UInt8], _ from: Int) throws(JSONParseError) {
            let slice = UnsafeBufferPointer(rebasing: state.buffer[from..<state.position])
            if let bad = Self.firstInvalidUTF8(slice) { throw state.fail("invalid UTF-8", at: from + bad) }
            bytes.append(contentsOf: slice)
        }
        while position < buffer.count {
            let b = buffer[position]
            if b == ASCII.quote {
                try flush(self, &bytes, segmentStart)
                position += 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if b < 0x20 { throw fail("unescaped control character in a string") }
            if b != ASCII.backslash {
                position += 1
                continue
            }
            try flush(self, &bytes, segmentStart)
            let escapeStart = position
            position += 1
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
        throw fail("unterminated string", at: start - 1)
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
