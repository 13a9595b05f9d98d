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
        return .bool(try Self.apply(op, a, b, &budget))
    }

    static func apply(
        _ op: ExpressionSyntax.ComparisonOperator, _ a: JSONValue, _ b: JSONValue, _ budget: inout CostBudget
    ) throws(EvaluationFailure) -> Bool {
        switch op {
        case .equal: return try Self.equal(a, b, &budget)
        case .notEqual: return try !Self.equal(a, b, &budget)
        case .less: return ValueSemantics.compare(a, b, .less)
        case .lessOrEqual: return ValueSemantics.compare(a, b, .lessOrEqual)
        case .greater: return ValueSemantics.compare(a, b, .greater)
        case .greaterOrEqual: return ValueSemantics.compare(a, b, .greaterOrEqual)
        case .isIn:
            guard case .array(let elements) = b else { return false }
            for element in elements {
                try budget.charge(1)
                if try Self.equal(a, element, &budget) { return true }
            }
            return false
        }
    }

    /// `JSONValue ==`, charging one unit per array element and object member compared: two
    /// operators over arrays of a million elements each would otherwise cost one unit apiece
    /// and hold the engine for seconds (the budget's job is to bound that). Scalars cost
    /// nothing more than their node.
    static func equal(_ a: JSONValue, _ b: JSONValue, _ budget: inout CostBudget) throws(EvaluationFailure) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            try budget.charge(x.count)
            for i in x.indices {
                guard try equal(x[i], y[i], &budget) else { return false }
            }
            return true
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            try budget.charge(x.count)
            for (key, value) in x {
                guard let other = y[key], try equal(value, other, &budget) else { return false }
            }
            return true
        default:
            return a == b
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
        return .bool(try ComparisonNode.equal(value, literal, &budget) != negated)
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
