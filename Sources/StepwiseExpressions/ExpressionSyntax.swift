import StepwiseJSON

/// The parsed form of an expression, before compilation (SEMANTICS §3.2).
///
/// Left-associative chains of the same precedence (`&&`, `||`, `+ -`, `* / %`) are kept flat
/// so that 1000-term chains neither nest deeply nor recurse deeply.
indirect enum ExpressionSyntax: Sendable {
    /// Binary arithmetic operators.
    enum ArithmeticOperator: Sendable {
        case add, subtract, multiply, divide, remainder
    }

    /// Comparison operators (non-associative).
    enum ComparisonOperator: Sendable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, isIn
    }

    /// Prefix operators.
    enum PrefixOperator: Sendable {
        case not, negate
    }

    case literal(JSONValue)
    case path(ValuePath, text: String)
    case list([ExpressionSyntax])
    case call(BuiltinFunction, [ExpressionSyntax])
    case has(ValuePath)
    case prefix(PrefixOperator, ExpressionSyntax)
    case arithmetic(first: ExpressionSyntax, rest: [(ArithmeticOperator, ExpressionSyntax)])
    case comparison(ComparisonOperator, ExpressionSyntax, ExpressionSyntax)
    case and([ExpressionSyntax])
    case or([ExpressionSyntax])
    case conditional(ExpressionSyntax, ExpressionSyntax, ExpressionSyntax)
    /// A base followed by `[e]` and `.a.b` accesses, in order: one flat list however long the
    /// chain, so compiling and evaluating it never recurses once per access.
    case postfix(ExpressionSyntax, [PostfixAccess])

    /// One access of a postfix chain.
    enum PostfixAccess: Sendable {
        /// `[e]`.
        case index(ExpressionSyntax)
        /// `.a.b` after `)` or `]`.
        case member([PathSegment])
    }
}
