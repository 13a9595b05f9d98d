import StepwiseJSON

/// `a && b && …` with short-circuit and error absorption (SEMANTICS §3.8): a falsy operand
/// makes the chain `false` even when an earlier operand failed; otherwise the first error wins.
final class AndNode: ExpressionNode, @unchecked Sendable {
    let terms: [ExpressionNode]

    init(_ terms: [ExpressionNode]) { self.terms = terms }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        // One unit per `&&` operator, as in the equivalent left-deep tree.
        try budget.charge(terms.count - 1)
        var pending: EvaluationFailure?
        for term in terms {
            do {
                if try !term.evaluate(scope, &budget).isTruthy { return .bool(false) }
            } catch {
                if pending == nil { pending = error }
            }
        }
        if let pending { throw pending }
        return .bool(true)
    }
}

/// `a || b || …` with short-circuit and error absorption: a truthy operand makes the chain
/// `true` even when an earlier operand failed; otherwise the first error wins.
final class OrNode: ExpressionNode, @unchecked Sendable {
    let terms: [ExpressionNode]

    init(_ terms: [ExpressionNode]) { self.terms = terms }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(terms.count - 1)
        var pending: EvaluationFailure?
        for term in terms {
            do {
                if try term.evaluate(scope, &budget).isTruthy { return .bool(true) }
            } catch {
                if pending == nil { pending = error }
            }
        }
        if let pending { throw pending }
        return .bool(false)
    }
}

/// Prefix `!x`: the negated truthiness, a bool.
final class NotNode: ExpressionNode, @unchecked Sendable {
    let operand: ExpressionNode

    init(_ operand: ExpressionNode) { self.operand = operand }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        return .bool(!(try operand.evaluate(scope, &budget).isTruthy))
    }
}
