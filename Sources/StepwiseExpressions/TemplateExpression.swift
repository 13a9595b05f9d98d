import StepwiseJSON

/// The inside of one `{{ … }}` (SEMANTICS §4.2): a source, then `|` segments that are filters,
/// fallback paths or literals.
struct TemplateExpression: Sendable {
    /// Where the value comes from.
    enum Source: Sendable {
        case path(ValuePath)
        case json(ValuePath)
        case length(ValuePath)
    }

    /// A segment after the source.
    enum Segment: Sendable {
        case filter(TemplateFilter)
        case path(ValuePath)
        case literal(JSONValue)
    }

    let source: Source
    let segments: [Segment]

    /// Evaluates: walk to the first filter, taking the first non-null path value or literal as
    /// the base; then apply every later filter in order.
    ///
    /// - Throws: ``TemplateError`` from a failing filter.
    func evaluate(_ scope: EvaluationScope) throws(TemplateError) -> JSONValue {
        var base: JSONValue = .null
        var filtersFrom = segments.count
        let first: JSONValue
        switch source {
        case .path(let p): first = p.resolve(in: scope)
        case .json(let p):
            // Templates have no cost limit.
            var budget = CostBudget(units: Int.max)
            first = (try? FunctionLibrary.json(p.resolve(in: scope), &budget)) ?? .null
        case .length(let p): first = FunctionLibrary.len(p.resolve(in: scope))
        }
        if !first.isNull {
            base = first
            filtersFrom = 0
        } else {
            walk: for (i, segment) in segments.enumerated() {
                switch segment {
                case .filter:
                    filtersFrom = i
                    break walk
                case .path(let p):
                    let v = p.resolve(in: scope)
                    if !v.isNull {
                        base = v
                        filtersFrom = i + 1
                        break walk
                    }
                case .literal(let v):
                    base = v
                    filtersFrom = i + 1
                    break walk
                }
            }
        }
        var value = base
        if filtersFrom < segments.count {
            for segment in segments[filtersFrom...] {
                if case .filter(let f) = segment { value = try f.apply(value, scope) }
            }
        }
        return value
    }
}

extension TemplateExpression {
    /// The roots a template path may start with (§3.4 plus `state`).
    static let roots: Set<String> = ["context", "data", "config", "outputs", "steps", "input", "instance_id", "runtime", "state"]

    /// Parses the inside of a `{{ … }}`.
    ///
    /// - Returns: the expression and its warnings (bare words used as literals).
    /// - Throws: ``TemplateError`` for the first violation of §4.4.
    static func parse(_ text: String) throws(TemplateError) -> (TemplateExpression, [String]) {
        let pieces = split(text, on: UInt8(ascii: "|"))
        let sourceText = pieces[0].trimmed
        if pieces.count == 1 && sourceText.isEmpty { throw TemplateError(message: "empty template") }
        let source = try parseSource(sourceText)
        var segments: [Segment] = []
        var warnings: [String] = []
        for piece in pieces.dropFirst() {
            let t = piece.trimmed
            guard !t.isEmpty else { throw TemplateError(message: "empty segment after '|'") }
            segments.append(try parseSegment(t, warnings: &warnings))
        }
        return (TemplateExpression(source: source, segments: segments), warnings)
    }

    /// Splits on `separator` outside quotes and parentheses.
    static func split(_ text: String, on separator: UInt8) -> [String] {
        let b = Array(text.utf8)
        var parts: [String] = []
        var start = 0
        var depth = 0
        var quote: UInt8?
        for (i, c) in b.enumerated() {
            if let q = quote {
                if c == q { quote = nil }
                continue
            }
            switch c {
            case UInt8(ascii: "'"), UInt8(ascii: "\""): quote = c
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"): depth = max(0, depth - 1)
            case separator where depth == 0:
                parts.append(String(decoding: b[start..<i], as: UTF8.self))
                start = i + 1
            default: break
            }
        }
        parts.append(String(decoding: b[start...], as: UTF8.self))
        return parts
    }

    /// The words of a dotted path (`[A-Za-z_][A-Za-z0-9_-]*` then `.`-separated non-empty
    /// segments of `[A-Za-z0-9_-]`), or `nil` when `text` is not one.
    static func pathWords(_ text: String) -> [Substring]? {
        guard let first = text.utf8.first, ExpressionLexer.isLetter(Unicode.Scalar(first)) else { return nil }
        let words = ValuePath.dottedWords(text)
        for w in words {
            guard !w.isEmpty else { return nil }
            for c in w.utf8 {
                let s = Unicode.Scalar(c)
                guard ExpressionLexer.isLetter(s) || ExpressionLexer.isDigit(s) || c == UInt8(ascii: "-") else { return nil }
            }
        }
        return words
    }

    /// A path with a known root.
    ///
    /// - Returns: `nil` when `text` is not a path or its root is unknown (a bare word when used
    ///   as a segment).
    /// - Throws: for `context.` not followed by `data`/`config`, and `json`/`len` used as roots.
    static func knownPath(_ text: String) throws(TemplateError) -> ValuePath? {
        guard let words = pathWords(text) else { return nil }
        let root = String(words[0])
        if root == "json" || root == "len" {
            throw TemplateError(message: "'\(root)' is only a function: write \(root)(path)")
        }
        guard roots.contains(root) else { return nil }
        if root == "context" {
            guard words.count >= 2, words[1] == "data" || words[1] == "config" else {
                throw TemplateError(message: "unknown root '\(text)': 'context.' must be followed by data or config")
            }
        }
        return ValuePath(words: words, allowState: true)
    }

    private static func parseSource(_ t: String) throws(TemplateError) -> Source {
        if let open = t.utf8.firstIndex(of: UInt8(ascii: "(")), !isQuoted(t) {
            let name = t[..<open].trimmed
            guard name == "json" || name == "len" else {
                throw TemplateError(
                    message: "template source must be a path, json(path) or len(path); '\(name)(…)' is not one")
            }
            guard t.utf8.last == UInt8(ascii: ")") else { throw TemplateError(message: "missing ')' after \(name)(") }
            let inner = String(t[t.index(after: open)..<t.index(before: t.endIndex)]).trimmed
            guard let path = try knownPath(inner) else {
                if let words = pathWords(inner) {
                    throw TemplateError(message: "unknown root '\(words[0])' in \(name)(\(inner))")
                }
                throw TemplateError(message: "\(name)() needs a path with a known root, got '\(inner)'")
            }
            return name == "json" ? .json(path) : .length(path)
        }
        if let path = try knownPath(t) { return .path(path) }
        if let words = pathWords(t) { throw TemplateError(message: "unknown root '\(words[0])'") }
        throw TemplateError(message: "template source must be a path with a known root, json(path) or len(path), got '\(t)'")
    }

    private static func parseSegment(_ t: String, warnings: inout [String]) throws(TemplateError) -> Segment {
        if !isQuoted(t), let open = t.utf8.firstIndex(of: UInt8(ascii: "(")) {
            let name = t[..<open].trimmed
            guard TemplateFilter.names.contains(name) else { throw TemplateError(message: "unknown filter '\(name)'") }
            guard t.utf8.last == UInt8(ascii: ")") else {
                throw TemplateError(message: "missing ')' after the arguments of filter '\(name)'")
            }
            let inner = String(t[t.index(after: open)..<t.index(before: t.endIndex)])
            let arguments = try parseArguments(inner, filter: name)
            return .filter(try TemplateFilter(name: name, arguments: arguments))
        }
        if TemplateFilter.argumentFreeNames.contains(t) {
            return .filter(try TemplateFilter(name: t, arguments: []))
        }
        if let literal = try literalValue(t) { return .literal(literal) }
        if let path = try knownPath(t) { return .path(path) }
        warnings.append("bare word '\(t)' is used as the string '\(t)'; quote it to make that explicit")
        return .literal(.string(t))
    }

    /// A quoted string, number, `true`, `false` or `null`; `nil` for anything else.
    ///
    /// - Throws: for a quote that is not closed at the end of `t`.
    static func literalValue(_ t: String) throws(TemplateError) -> JSONValue? {
        // Quotes are found by their bytes: a Character would join a quote with a combining mark
        // after it (`'\u{301}'`), hiding the quote.
        if isQuoted(t) {
            let utf8 = t.utf8
            guard utf8.count >= 2, utf8.last == utf8.first else { throw TemplateError(message: "unterminated string \(t)") }
            return .string(String(decoding: utf8.dropFirst().dropLast(), as: UTF8.self))
        }
        switch t {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        return number(t)
    }

    /// Whether `t` starts with a quote (`'` or `"`).
    static func isQuoted(_ t: String) -> Bool {
        t.utf8.first == UInt8(ascii: "'") || t.utf8.first == UInt8(ascii: "\"")
    }

    /// A number written `-?digits[.digits][e[±]digits]`.
    static func number(_ t: String) -> JSONValue? {
        var body = Substring(t)
        if body.first == "-" { body = body.dropFirst() }
        guard let f = body.utf8.first, ValueSemantics.isDigit(f) else { return nil }
        guard let d = ValueSemantics.decimalNumber(t) else { return nil }
        if t.utf8.allSatisfy({ ValueSemantics.isDigit($0) || $0 == UInt8(ascii: "-") }), let i = Int64(t) {
            return .integer(i)
        }
        return .double(d)
    }

    private static func parseArguments(_ text: String, filter: String) throws(TemplateError) -> [TemplateArgument] {
        if text.trimmed.isEmpty { return [] }
        var arguments: [TemplateArgument] = []
        for raw in split(text, on: UInt8(ascii: ",")) {
            let t = raw.trimmed
            guard !t.isEmpty else { throw TemplateError(message: "empty argument in filter '\(filter)'") }
            if let v = try literalValue(t) {
                switch v {
                case .string(let s): arguments.append(.quoted(s))
                case .integer(let i): arguments.append(.integer(i))
                case .double: arguments.append(.number(v, written: t))
                default: arguments.append(.literal(v))
                }
            } else if let path = try knownPath(t) {
                arguments.append(.path(path, t))
            } else {
                arguments.append(.invalid(t))
            }
        }
        return arguments
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and line breaks.
    var trimmed: String {
        let scalars = String(self).unicodeScalars
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }
}
