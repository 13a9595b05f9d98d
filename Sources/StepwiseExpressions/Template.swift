public import StepwiseJSON

/// One string that may contain `{{ … }}` templates (SEMANTICS §4), compiled at load.
///
/// A string that is exactly one `{{ expr }}` renders to the value with its JSON type; otherwise
/// each `{{ … }}` is replaced inline (strings raw, other values as compact JSON). A `{{` that is
/// never closed stays literal text, with a warning.
///
/// ```swift
/// let t = try Template.compile("Hello {{ data.user.name | default('there') }}!")
/// try t.render(EvaluationScope(data: ["user": ["name": "Ada"]]))   // "Hello Ada!"
/// ```
public struct Template: Sendable {
    /// How the string renders.
    enum Form: Sendable {
        /// The whole string is one template: type-preserving.
        case whole(TemplateExpression)
        /// Literal text and inline templates, rendered as a string.
        case inline([Part])
    }

    /// A piece of an inline template string.
    enum Part: Sendable {
        case text(String)
        case expression(TemplateExpression)
    }

    /// The text as written.
    public let source: String
    /// Bare-word fallbacks used as strings, and `{{` left unclosed (kept as text).
    public let warnings: [String]
    let form: Form

    /// Compiles `text`, checking every complete `{{ }}` (§4.4).
    ///
    /// - Parameter text: the string as written in the document.
    /// - Returns: the compiled template (a string without `{{` renders as itself).
    /// - Throws: ``TemplateError`` naming the first problem, e.g. `unknown filter 'foo'` or
    ///   `unknown root 'bar'`. Unclosed `{{` and bare words are warnings, not errors.
    public static func compile(_ text: String) throws(TemplateError) -> Template {
        let analysis = analyze(text)
        if let first = analysis.errors.first { throw first }
        return analysis.template!
    }

    /// Compiles `text`, collecting every problem instead of stopping at the first.
    static func analyze(_ text: String) -> (template: Template?, errors: [TemplateError], warnings: [String]) {
        let scan = scanParts(text)
        var warnings: [String] = []
        var errors: [TemplateError] = []
        var parts: [Part] = []
        for piece in scan.pieces {
            switch piece {
            case .text(let s):
                parts.append(.text(s))
            case .expression(let inner):
                do {
                    let (expression, bareWords) = try TemplateExpression.parse(inner)
                    warnings.append(contentsOf: bareWords.map { "\($0) in {{\(inner)}}" })
                    parts.append(.expression(expression))
                } catch {
                    errors.append(TemplateError(message: "\(error.message) in {{\(inner)}}"))
                }
            }
        }
        if let unclosed = scan.unclosedText {
            warnings.append("unclosed '{{' kept as text: \(unclosed)")
        }
        guard errors.isEmpty else { return (nil, errors, warnings) }
        let form: Form
        if scan.isWhole, case .expression(let e) = parts[0] {
            form = .whole(e)
        } else {
            form = .inline(parts)
        }
        return (Template(source: text, warnings: warnings, form: form), [], warnings)
    }

    private enum Piece {
        case text(String)
        case expression(String)
    }

    /// Splits `text` into literal text and the insides of complete `{{ … }}`; a `}}` inside a
    /// quoted argument does not close (quotes have no escapes).
    private static func scanParts(_ text: String) -> (pieces: [Piece], isWhole: Bool, unclosedText: String?) {
        let b = Array(text.utf8)
        let n = b.count
        var pieces: [Piece] = []
        var literal: [UInt8] = []
        var i = 0
        var unclosed: String?
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        func plainClose(from k: Int) -> Int? {
            var k = k
            while k + 1 < n {
                if b[k] == close && b[k + 1] == close { return k }
                k += 1
            }
            return nil
        }
        /// The first `}}` outside quotes; when there is none, whether the text ended inside a
        /// quote (one never closed, which then cannot hide a `}}`).
        func quotedClose(from k: Int) -> (close: Int?, endsInQuote: Bool) {
            var k = k
            var quote: UInt8?
            while k < n {
                let c = b[k]
                if let q = quote {
                    if c == q { quote = nil }
                } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") {
                    quote = c
                } else if c == close && k + 1 < n && b[k + 1] == close {
                    return (k, false)
                }
                k += 1
            }
            return (nil, quote != nil)
        }
        func templateClose(from k: Int) -> Int? {
            let quoted = quotedClose(from: k)
            if let close = quoted.close { return close }
            // §4.1: a `}}` inside a quoted argument does not close the template, which is then
            // never closed; only an unbalanced quote falls back to the first `}}`.
            return quoted.endsInQuote ? plainClose(from: k) : nil
        }
        while i < n {
            if b[i] == open && i + 1 < n && b[i + 1] == open {
                guard let end = templateClose(from: i + 2) else {
                    unclosed = String(decoding: b[i...], as: UTF8.self)
                    literal.append(contentsOf: b[i...])
                    i = n
                    break
                }
                if !literal.isEmpty {
                    pieces.append(.text(String(decoding: literal, as: UTF8.self)))
                    literal.removeAll()
                }
                pieces.append(.expression(String(decoding: b[(i + 2)..<end], as: UTF8.self)))
                i = end + 2
            } else {
                literal.append(b[i])
                i += 1
            }
        }
        if !literal.isEmpty { pieces.append(.text(String(decoding: literal, as: UTF8.self))) }
        var isWhole = false
        if pieces.count == 1, case .expression = pieces[0] { isWhole = true }
        return (pieces, isWhole, unclosed)
    }

    /// Whether `s` contains `{{`, which makes it a template (§4.1). Compared by bytes: a `{`
    /// followed by a combining mark is one `Character`, so `String.contains("{{")` misses it.
    public static func containsOpening(_ s: String) -> Bool {
        var previous: UInt8 = 0
        for byte in s.utf8 {
            if byte == UInt8(ascii: "{") && previous == byte { return true }
            previous = byte
        }
        return false
    }

    /// Whether the whole string is one `{{ … }}` (rendering keeps the value's JSON type).
    public var isWhole: Bool {
        if case .whole = form { return true }
        return false
    }

    /// An inline template's rendered string is capped at this many bytes, like every filter
    /// result (§4.3).
    static let maximumRenderedBytes = 4 * 1024 * 1024

    /// The render error of an inline template whose text would pass ``maximumRenderedBytes``.
    static let tooLarge = TemplateError(message: "template: result exceeds 4 MiB")

    /// The text an inline `{{ }}` inserts (strings raw, other values as compact JSON), for a
    /// string already `written` bytes long; a value whose JSON would not fit is measured, not
    /// written.
    private static func inlineText(_ value: JSONValue, after written: Int) throws(TemplateError) -> String {
        if case .string(let s) = value { return s }
        let room = maximumRenderedBytes - written
        let options: JSONWriter.Options = [.sortedKeys, .integralDoublesAsIntegers]
        guard JSONWriter.byteCount(value, options: options, limit: room) != nil else { throw tooLarge }
        return JSONWriter.string(value, options: options)
    }

    /// Renders against `scope`.
    ///
    /// - Returns: for a whole-string template the value with its JSON type; otherwise a string
    ///   with each template replaced (strings raw, other values as compact JSON).
    /// - Throws: ``TemplateError`` when a filter fails at run time (invalid base64 for
    ///   `base64_decode`, a result over 4 MiB), or when an inline template's text would pass
    ///   4 MiB (`template: result exceeds 4 MiB`). Missing paths are not errors: they are null.
    public func render(_ scope: EvaluationScope) throws(TemplateError) -> JSONValue {
        switch form {
        case .whole(let expression):
            return try expression.evaluate(scope)
        case .inline(let parts):
            var out = ""
            for part in parts {
                let piece: String
                switch part {
                case .text(let s): piece = s
                case .expression(let e): piece = try Self.inlineText(try e.evaluate(scope), after: out.utf8.count)
                }
                // Checked before appending: the string never grows past the cap.
                guard out.utf8.count + piece.utf8.count <= Self.maximumRenderedBytes else { throw Self.tooLarge }
                out += piece
            }
            return .string(out)
        }
    }
}
