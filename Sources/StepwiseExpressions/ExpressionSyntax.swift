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
    case index(ExpressionSyntax, ExpressionSyntax)
    case member(ExpressionSyntax, [PathSegment])
}
