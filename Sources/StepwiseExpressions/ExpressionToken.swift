import StepwiseJSON

/// One token of the expression language (SEMANTICS §3.1).
struct ExpressionToken: Sendable {
    /// Operators and punctuation.
    enum Punctuation: String, Sendable {
        case equal = "==", notEqual = "!=", lessOrEqual = "<=", greaterOrEqual = ">="
        case and = "&&", or = "||", less = "<", greater = ">", not = "!"
        case plus = "+", minus = "-", times = "*", divide = "/", remainder = "%"
        case question = "?", colon = ":", openParen = "(", closeParen = ")"
        case openBracket = "[", closeBracket = "]", comma = ","
    }

    /// What the token is.
    enum Kind: Sendable {
        /// A number literal, already converted (integer when it fits Int64 and has no fraction
        /// or exponent).
        case number(JSONValue)
        /// A string literal with escapes resolved.
        case string(String)
        /// A dotted path or a name (`a.b.0`).
        case word(String)
        /// `true`, `false`, `null`.
        case literal(JSONValue)
        /// The `in` keyword.
        case inKeyword
        /// `.a.b` directly after `)` or `]`.
        case member(String)
        /// An operator or punctuation.
        case punctuation(Punctuation)
        /// The end of the text.
        case end
    }

    let kind: Kind
    /// 0-based Unicode-scalar offset into the text as written.
    let position: Int
    /// The token as written, for messages.
    let text: String

    /// How an error message quotes this token.
    var quoted: String {
        if case .end = kind { return "end of expression" }
        return "'\(text)'"
    }
}
