import StepwiseJSON

/// Splits expression text into tokens (SEMANTICS §3.1), reporting the first lexical error.
///
/// Works on Unicode scalars so that positions are scalar offsets into the text as written; the
/// lexed range may be the inside of an unwrapped `{{ … }}`.
struct ExpressionLexer {
    private let scalars: [Unicode.Scalar]
    private let end: Int
    private var index: Int
    private var tokens: [ExpressionToken] = []

    /// Prepares to lex `scalars[range]`.
    init(scalars: [Unicode.Scalar], range: Range<Int>) {
        self.scalars = scalars
        self.index = range.lowerBound
        self.end = range.upperBound
    }

    /// All tokens, ending with `.end` at the end of the range.
    static func tokenize(_ scalars: [Unicode.Scalar], range: Range<Int>) throws(ExpressionError) -> [ExpressionToken] {
        var lexer = ExpressionLexer(scalars: scalars, range: range)
        return try lexer.run()
    }

    private mutating func run() throws(ExpressionError) -> [ExpressionToken] {
        while true {
            skipWhitespace()
            guard index < end else { break }
            try lexOne()
        }
        tokens.append(ExpressionToken(kind: .end, position: end, text: ""))
        return tokens
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < end ? scalars[i] : nil
    }

    private mutating func skipWhitespace() {
        while index < end {
            switch scalars[index] {
            case " ", "\t", "\n", "\r": index += 1
            default: return
            }
        }
    }

    static func isLetter(_ c: Unicode.Scalar) -> Bool {
        (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c == "_"
    }

    static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

    /// The text of `scalars[range]`, encoded into a new string in one pass (appending scalars to
    /// a `String.UnicodeScalarView` one by one was the lexer's main cost).
    private func text(_ range: Range<Int>) -> String {
        Self.string(scalars, range)
    }

    /// `scalars[range]` as a string, written as UTF-8 straight into the string's storage.
    static func string(_ scalars: [Unicode.Scalar], _ range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        return scalars.withUnsafeBufferPointer { source in
            String(unsafeUninitializedCapacity: range.count * 4) { out in
                var n = 0
                for i in range {
                    let v = source[i].value
                    if v < 0x80 {
                        out[n] = UInt8(truncatingIfNeeded: v)
                        n += 1
                    } else if v < 0x800 {
                        out[n] = UInt8(truncatingIfNeeded: 0xC0 | (v >> 6))
                        out[n + 1] = UInt8(truncatingIfNeeded: 0x80 | (v & 0x3F))
                        n += 2
                    } else if v < 0x10000 {
                        out[n] = UInt8(truncatingIfNeeded: 0xE0 | (v >> 12))
                        out[n + 1] = UInt8(truncatingIfNeeded: 0x80 | ((v >> 6) & 0x3F))
                        out[n + 2] = UInt8(truncatingIfNeeded: 0x80 | (v & 0x3F))
                        n += 3
                    } else {
                        out[n] = UInt8(truncatingIfNeeded: 0xF0 | (v >> 18))
                        out[n + 1] = UInt8(truncatingIfNeeded: 0x80 | ((v >> 12) & 0x3F))
                        out[n + 2] = UInt8(truncatingIfNeeded: 0x80 | ((v >> 6) & 0x3F))
                        out[n + 3] = UInt8(truncatingIfNeeded: 0x80 | (v & 0x3F))
                        n += 4
                    }
                }
                return n
            }
        }
    }

    private mutating func emit(_ kind: ExpressionToken.Kind, from start: Int) {
        emit(kind, from: start, text: text(start..<index))
    }

    /// Appends a token whose text (`scalars[start..<index]`) the caller already has.
    private mutating func emit(_ kind: ExpressionToken.Kind, from start: Int, text: String) {
        tokens.append(ExpressionToken(kind: kind, position: start, text: text))
    }

    private mutating func lexOne() throws(ExpressionError) {
        let start = index
        let c = scalars[index]
        if Self.isLetter(c) {
            try lexWord()
            return
        }
        if Self.isDigit(c) {
            try lexNumber()
            return
        }
        switch c {
        case "'", "\"":
            try lexString(quote: c)
        case ".":
            // Member access only directly after ")" or "]".
            if let last = tokens.last, case .punctuation(let p) = last.kind, p == .closeParen || p == .closeBracket,
                last.position + last.text.unicodeScalars.count == start
            {
                try lexMember()
            } else {
                throw ExpressionError(position: start, message: "unexpected character '.'")
            }
        case "{":
            if peek(1) == "{" {
                throw ExpressionError(position: start, message: "'{{' inside an expression (only a whole '{{ … }}' is unwrapped)")
            }
            throw ExpressionError(position: start, message: "unexpected character '{'")
        default:
            try lexPunctuation(c, start: start)
        }
    }

    private mutating func lexPunctuation(_ c: Unicode.Scalar, start: Int) throws(ExpressionError) {
        let next = peek(1)
        let p: ExpressionToken.Punctuation
        var width = 1
        switch c {
        case "=":
            guard next == "=" else {
                throw ExpressionError(position: start, message: "unexpected character '='; use == to compare")
            }
            p = .equal
            width = 2
        case "!":
            if next == "=" { p = .notEqual; width = 2 } else { p = .not }
        case "<":
            if next == "=" { p = .lessOrEqual; width = 2 } else { p = .less }
        case ">":
            if next == "=" { p = .greaterOrEqual; width = 2 } else { p = .greater }
        case "&":
            guard next == "&" else { throw ExpressionError(position: start, message: "unexpected character '&'; use && for and") }
            p = .and
            width = 2
        case "|":
            guard next == "|" else { throw ExpressionError(position: start, message: "unexpected character '|'; use || for or") }
            p = .or
            width = 2
        case "+": p = .plus
        case "-": p = .minus
        case "*": p = .times
        case "/": p = .divide
        case "%": p = .remainder
        case "?": p = .question
        case ":": p = .colon
        case "(": p = .openParen
        case ")": p = .closeParen
        case "[": p = .openBracket
        case "]": p = .closeBracket
        case ",": p = .comma
        default:
            throw ExpressionError(position: start, message: "unexpected character \(Self.describe(c))")
        }
        index += width
        emit(.punctuation(p), from: start, text: p.rawValue)
    }

    /// How a message shows a character: quoted, or as U+XXXX when invisible.
    static func describe(_ c: Unicode.Scalar) -> String {
        if c.value < 0x20 || c.value == 0x7F || (c.properties.isWhitespace && c != " ") {
            let hex = String(c.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "'\(c)'"
    }

    /// `segment` = (letter | digit)+; returns false (consuming nothing) when empty.
    private mutating func scanSegment() -> Bool {
        let start = index
        while index < end, Self.isLetter(scalars[index]) || Self.isDigit(scalars[index]) { index += 1 }
        return index > start
    }

    private mutating func lexWord() throws(ExpressionError) {
        let start = index
        _ = scanSegment()
        while index < end, scalars[index] == "." {
            index += 1
            guard scanSegment() else { throw ExpressionError(position: index, message: "empty path segment") }
        }
        let word = text(start..<index)
        switch word {
        case "true": emit(.literal(.bool(true)), from: start, text: word)
        case "false": emit(.literal(.bool(false)), from: start, text: word)
        case "null": emit(.literal(.null), from: start, text: word)
        case "in": emit(.inKeyword, from: start, text: word)
        default: emit(.word(word), from: start, text: word)
        }
    }

    private mutating func lexMember() throws(ExpressionError) {
        let start = index
        while index < end, scalars[index] == "." {
            index += 1
            guard scanSegment() else { throw ExpressionError(position: index, message: "empty path segment") }
        }
        // Without the leading dot.
        emit(.member(text((start + 1)..<index)), from: start)
    }

    private mutating func lexNumber() throws(ExpressionError) {
        let start = index
        while index < end, Self.isDigit(scalars[index]) { index += 1 }
        var isInteger = true
        if index + 1 < end, scalars[index] == ".", Self.isDigit(scalars[index + 1]) {
            isInteger = false
            index += 1
            while index < end, Self.isDigit(scalars[index]) { index += 1 }
        }
        if index < end, scalars[index] == "e" || scalars[index] == "E" {
            var k = index + 1
            if k < end, scalars[k] == "+" || scalars[k] == "-" { k += 1 }
            if k < end, Self.isDigit(scalars[k]) {
                isInteger = false
                index = k
                while index < end, Self.isDigit(scalars[index]) { index += 1 }
            }
        }
        let literal = text(start..<index)
        if isInteger, let i = Int64(literal) {
            emit(.number(.integer(i)), from: start, text: literal)
            return
        }
        guard let d = Double(literal), d.isFinite else {
            throw ExpressionError(position: start, message: "number out of range: \(literal)")
        }
        emit(.number(.double(d)), from: start, text: literal)
    }

    private mutating func lexString(quote: Unicode.Scalar) throws(ExpressionError) {
        let start = index
        index += 1
        // Unescaped runs are copied in one piece; only escapes go scalar by scalar.
        var value = ""
        var run = index
        while true {
            guard index < end else { throw ExpressionError(position: start, message: "unterminated string") }
            let c = scalars[index]
            if c == quote {
                value += text(run..<index)
                index += 1
                break
            }
            if c == "\\" {
                value += text(run..<index)
                value.unicodeScalars.append(try lexEscape(stringStart: start))
                run = index
                continue
            }
            index += 1
        }
        emit(.string(value), from: start)
    }

    /// Reads one escape at `index` (a backslash) and returns the scalar it stands for.
    private mutating func lexEscape(stringStart: Int) throws(ExpressionError) -> Unicode.Scalar {
        let start = index
        guard let e = peek(1) else { throw ExpressionError(position: stringStart, message: "unterminated string") }
        switch e {
        case "\\", "'", "\"":
            index += 2
            return e
        case "n":
            index += 2
            return "\n"
        case "t":
            index += 2
            return "\t"
        case "r":
            index += 2
            return "\r"
        case "u":
            guard let unit = hex4(at: index + 2) else { throw invalidEscape(at: start) }
            index += 6
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek() == "\\", peek(1) == "u", let low = hex4(at: index + 2), low >= 0xDC00, low <= 0xDFFF else {
                    throw ExpressionError(position: start, message: "invalid escape: lone surrogate \\u\(hexText(unit))")
                }
                index += 6
                let combined = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                return Unicode.Scalar(combined)!
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw ExpressionError(position: start, message: "invalid escape: lone surrogate \\u\(hexText(unit))")
            }
            return scalar
        default:
            throw invalidEscape(at: start)
        }
    }

    private func hexText(_ unit: UInt32) -> String {
        let h = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    private func invalidEscape(at start: Int) -> ExpressionError {
        let shown = text(start..<min(end, start + 2))
        return ExpressionError(position: start, message: "invalid escape '\(shown)'")
    }

    private func hex4(at i: Int) -> UInt32? {
        guard i + 4 <= end else { return nil }
        var v: UInt32 = 0
        for k in i..<(i + 4) {
            let c = scalars[k]
            let d: UInt32
            switch c {
            case "0"..."9": d = c.value - 0x30
            case "a"..."f": d = c.value - 0x61 + 10
            case "A"..."F": d = c.value - 0x41 + 10
            default: return nil
            }
            v = v << 4 | d
        }
        return v
    }
}
