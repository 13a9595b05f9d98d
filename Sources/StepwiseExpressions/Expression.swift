import StepwiseJSON

/// A compiled condition of the expression language (SEMANTICS §3).
///
/// Compiled once, strictly, at load; evaluated many times without re-parsing. Evaluation never
/// throws: runtime errors are values (``EvaluationResult/error(_:)``).
///
/// ```swift
/// let condition = try Expression.compile("context.data.terms_decision == 'declined'")
/// let scope = EvaluationScope(data: ["terms_decision": "declined"])
/// condition.evaluate(scope)   // .value(true)
/// ```
public struct Expression: Sendable {
    /// The text as written.
    public let source: String
    /// Warnings for an author: `now()`, `uuid()`, `random()` in a condition.
    public let warnings: [String]
    private let root: ExpressionNode

    /// The longest accepted text, in UTF-8 bytes (§3.9).
    public static let maximumTextBytes = 16 * 1024

    private init(source: String, warnings: [String], root: ExpressionNode) {
        self.source = source
        self.warnings = warnings
        self.root = root
    }

    /// Compiles `text` like a router condition: a text whose trimmed form is exactly one
    /// `{{ … }}` is unwrapped first; everything else is parsed strictly.
    ///
    /// - Parameter text: the condition as written in the sequence.
    /// - Returns: the compiled expression.
    /// - Throws: ``ExpressionError`` with the 0-based Unicode-scalar position in `text` of the
    ///   first problem (§3.8). Never throws for conditions that only fail at run time.
    public static func compile(_ text: String) throws(ExpressionError) -> Expression {
        let byteCount = text.utf8.count
        guard byteCount <= maximumTextBytes else {
            throw ExpressionError(
                position: 0, message: "expression text over 16 KiB (\(byteCount) bytes; the limit is \(maximumTextBytes))")
        }
        let scalars = Self.unicodeScalars(of: text)
        var lower = 0
        var upper = scalars.count
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
        while lower < upper, isSpace(scalars[lower]) { lower += 1 }
        while upper > lower, isSpace(scalars[upper - 1]) { upper -= 1 }
        var range = 0..<scalars.count
        if upper - lower >= 4, scalars[lower] == "{", scalars[lower + 1] == "{", scalars[upper - 2] == "}",
            scalars[upper - 1] == "}", !Self.containsBraces(scalars[(lower + 2)..<(upper - 2)])
        {
            // Exactly one `{{ … }}` (`{{ a }} == {{ b }}` is two, and is not unwrapped: its
            // first `{{` is then the "inside an expression" error).
            range = (lower + 2)..<(upper - 2)
        }
        let tokens = try ExpressionLexer.tokenize(scalars, range: range)
        var parser = ExpressionParser(tokens: tokens, startPosition: range.lowerBound)
        let syntax = try parser.parse()
        let warnings = parser.nondeterministicCalls.map {
            "\($0.rawValue)() in a condition: its result changes from one evaluation to the next"
        }
        return Expression(source: text, warnings: warnings, root: ExpressionCompiler.compile(syntax))
    }

    /// Whether `scalars` hold `{{` or `}}` outside string literals (`{{ s == '}}' }}` is one
    /// `{{ … }}`).
    private static func containsBraces(_ scalars: ArraySlice<Unicode.Scalar>) -> Bool {
        var previous: Unicode.Scalar?
        var quote: Unicode.Scalar?
        var escaped = false
        for c in scalars {
            if let q = quote {
                if escaped {
                    escaped = false
                } else if c == "\\" {
                    escaped = true
                } else if c == q {
                    quote = nil
                }
                previous = nil
                continue
            }
            if c == "'" || c == "\"" {
                quote = c
                previous = nil
                continue
            }
            if (c == "{" || c == "}") && previous == c { return true }
            previous = c
        }
        return false
    }

    /// The Unicode scalars of `text`; ASCII text (nearly every condition) is widened byte by
    /// byte instead of being decoded.
    static func unicodeScalars(of text: String) -> [Unicode.Scalar] {
        var text = text
        let ascii: [Unicode.Scalar]? = text.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                guard bytes[i] < 0x80 else { return nil }
                i += 1
            }
            return [Unicode.Scalar](unsafeUninitializedCapacity: bytes.count) { out, count in
                for k in 0..<bytes.count { (out.baseAddress! + k).initialize(to: Unicode.Scalar(bytes[k])) }
                count = bytes.count
            }
        }
        return ascii ?? Array(text.unicodeScalars)
    }

    /// Evaluates the expression once.
    ///
    /// - Parameter scope: what paths, `now()`, `uuid()` and `random()` read; borrowed, not copied.
    /// - Returns: the value, or the runtime error as a value (e.g. `clamp: lo 5 is greater than
    ///   hi 1`, `evaluation cost limit exceeded`). Never throws and never traps.
    public func evaluate(_ scope: EvaluationScope) -> EvaluationResult {
        var budget = CostBudget()
        do {
            return .value(try root.evaluate(scope, &budget))
        } catch {
            return .error(error.message)
        }
    }

    /// Evaluates and reduces to what a router acts on.
    ///
    /// - Returns: the truthiness of the value (§3.5), or `nil` when evaluation failed.
    public func isTruthy(in scope: EvaluationScope) -> Bool? {
        var budget = CostBudget()
        do {
            return try root.evaluate(scope, &budget).isTruthy
        } catch {
            return nil
        }
    }
}
