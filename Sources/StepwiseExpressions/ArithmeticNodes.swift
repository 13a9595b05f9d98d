import StepwiseJSON

/// A left-associative chain of `+ -` or `* / %` (SEMANTICS §3.6), folded iteratively.
final class ArithmeticNode: ExpressionNode, @unchecked Sendable {
    let first: ExpressionNode
    let operators: [ExpressionSyntax.ArithmeticOperator]
    let operands: [ExpressionNode]

    init(first: ExpressionNode, operators: [ExpressionSyntax.ArithmeticOperator], operands: [ExpressionNode]) {
        self.first = first
        self.operators = operators
        self.operands = operands
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(operators.count)
        var accumulator = try first.evaluate(scope, &budget)
        for i in 0..<operators.count {
            let rhs = try operands[i].evaluate(scope, &budget)
            accumulator = try Self.apply(operators[i], accumulator, rhs, &budget)
        }
        return accumulator
    }

    /// One binary arithmetic operation.
    ///
    /// String concatenation is charged one unit per 64 bytes it produces, before the copy
    /// (§3.9: the bytes touched), so a `s + s + …` chain pays for each copy of its growing
    /// accumulator and runs out of budget long before its time or memory become a problem.
    static func apply(
        _ op: ExpressionSyntax.ArithmeticOperator, _ a: JSONValue, _ b: JSONValue, _ budget: inout CostBudget
    ) throws(EvaluationFailure) -> JSONValue {
        if op == .add, case .string(let x) = a, case .string(let y) = b {
            try budget.chargeBytes(x.utf8.count + y.utf8.count)
            return .string(x + y)
        }
        guard let x = ValueSemantics.number(a), let y = ValueSemantics.number(b) else { return .null }
        switch op {
        case .add: return ValueSemantics.numberValue(x + y)
        case .subtract: return ValueSemantics.numberValue(x - y)
        case .multiply: return ValueSemantics.numberValue(x * y)
        case .divide: return y == 0 ? .null : ValueSemantics.numberValue(x / y)
        case .remainder:
            // Truncated remainder: the sign of the dividend.
            return y == 0 ? .null : ValueSemantics.numberValue(x.truncatingRemainder(dividingBy: y))
        }
    }
}

/// Prefix `-x`: the negated to-number, else null.
final class NegateNode: ExpressionNode, @unchecked Sendable {
    let operand: ExpressionNode

    init(_ operand: ExpressionNode) { self.operand = operand }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        guard let x = ValueSemantics.number(try operand.evaluate(scope, &budget)) else { return .null }
        return ValueSemantics.numberValue(-x)
    }
}
