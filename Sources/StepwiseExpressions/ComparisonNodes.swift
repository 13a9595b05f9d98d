import StepwiseJSON

/// `==`, `!=`, `<`, `<=`, `>`, `>=`, `in` between two evaluated operands (SEMANTICS §3.6).
final class ComparisonNode: ExpressionNode, @unchecked Sendable {
    let op: ExpressionSyntax.ComparisonOperator
    let lhs: ExpressionNode
    let rhs: ExpressionNode

    init(_ op: ExpressionSyntax.ComparisonOperator, _ lhs: ExpressionNode, _ rhs: ExpressionNode) {
        self.op = op
        self.lhs = lhs
        self.rhs = rhs
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        let a = try lhs.evaluate(scope, &budget)
        let b = try rhs.evaluate(scope, &budget)
        return .bool(Self.apply(op, a, b))
    }

    static func apply(_ op: ExpressionSyntax.ComparisonOperator, _ a: JSONValue, _ b: JSONValue) -> Bool {
        switch op {
        case .equal: return a == b
        case .notEqual: return a != b
        case .less: return ValueSemantics.compare(a, b, .less)
        case .lessOrEqual: return ValueSemantics.compare(a, b, .lessOrEqual)
        case .greater: return ValueSemantics.compare(a, b, .greater)
        case .greaterOrEqual: return ValueSemantics.compare(a, b, .greaterOrEqual)
        case .isIn:
            guard case .array(let elements) = b else { return false }
            return elements.contains(a)
        }
    }
}

/// `x == literal` / `x != literal`: the literal is prebuilt and not re-evaluated.
final class EqualsLiteralNode: ExpressionNode, @unchecked Sendable {
    let operand: ExpressionNode
    let literal: JSONValue
    let negated: Bool

    init(operand: ExpressionNode, literal: JSONValue, negated: Bool) {
        self.operand = operand
        self.literal = literal
        self.negated = negated
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        // The comparison and the literal operand.
        try budget.charge(2)
        let value = try operand.evaluate(scope, &budget)
        return .bool((value == literal) != negated)
    }
}

/// `x <op> literal` for the relational operators: the literal is prebuilt.
final class CompareLiteralNode: ExpressionNode, @unchecked Sendable {
    let operand: ExpressionNode
    let literal: JSONValue
    let op: RelationalOperator

    init(operand: ExpressionNode, literal: JSONValue, op: RelationalOperator) {
        self.operand = operand
        self.literal = literal
        self.op = op
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(2)
        let value = try operand.evaluate(scope, &budget)
        return .bool(ValueSemantics.compare(value, literal, op))
    }
}
