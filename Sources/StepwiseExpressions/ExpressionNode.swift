import StepwiseJSON

/// A compiled expression node: evaluated by a virtual call, without parsing or per-evaluation
/// allocation for paths, literals and comparisons.
///
/// Subclasses are immutable (only `let` properties of `Sendable` types), which is why the class
/// can be `@unchecked Sendable`: nothing is ever written after initialisation.
class ExpressionNode: @unchecked Sendable {
    /// Evaluates the node against `scope`, charging `budget`.
    ///
    /// - Throws: ``EvaluationFailure`` for a runtime error (never for anything else).
    func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        fatalError("ExpressionNode.evaluate must be overridden")
    }
}

/// A literal: the value is built once at compile time.
final class LiteralNode: ExpressionNode, @unchecked Sendable {
    let value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        return value
    }
}

/// A path with its root and segments split at compile time.
final class PathNode: ExpressionNode, @unchecked Sendable {
    let path: ValuePath

    init(_ path: ValuePath) { self.path = path }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        return path.resolve(in: scope)
    }
}

/// A single-segment path into `context.data` (`status`, `data.status`): the common case.
final class DataMemberNode: ExpressionNode, @unchecked Sendable {
    let segment: PathSegment

    init(segment: PathSegment) { self.segment = segment }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        return ValuePath.child(of: scope.data, segment) ?? .null
    }
}

/// `has(path)`: whether every segment exists.
final class HasNode: ExpressionNode, @unchecked Sendable {
    let path: ValuePath

    init(_ path: ValuePath) { self.path = path }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        // The call and its path argument.
        try budget.charge(2)
        return .bool(path.exists(in: scope))
    }
}

/// A list literal `[a, b, …]`.
final class ListNode: ExpressionNode, @unchecked Sendable {
    let elements: [ExpressionNode]

    init(_ elements: [ExpressionNode]) { self.elements = elements }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        var values: [JSONValue] = []
        values.reserveCapacity(elements.count)
        for e in elements { values.append(try e.evaluate(scope, &budget)) }
        return .array(values)
    }
}

/// Postfix `a[e]`: an array with an integral in-range number, or an object with a string.
final class IndexNode: ExpressionNode, @unchecked Sendable {
    let base: ExpressionNode
    let subscriptNode: ExpressionNode

    init(base: ExpressionNode, subscript subscriptNode: ExpressionNode) {
        self.base = base
        self.subscriptNode = subscriptNode
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        let container = try base.evaluate(scope, &budget)
        let key = try subscriptNode.evaluate(scope, &budget)
        switch (container, key) {
        case (.array(let a), .integer(let i)):
            guard i >= 0, i < Int64(a.count) else { return .null }
            return a[Int(i)]
        case (.array(let a), .double(let d)):
            guard d.rounded(.towardZero) == d, d >= 0, d < Double(a.count) else { return .null }
            return a[Int(d)]
        case (.object(let o), .string(let k)):
            return o[k] ?? .null
        default:
            return .null
        }
    }
}

/// Postfix `.a.b` after `)` or `]`.
final class MemberNode: ExpressionNode, @unchecked Sendable {
    let base: ExpressionNode
    let segments: [PathSegment]

    init(base: ExpressionNode, segments: [PathSegment]) {
        self.base = base
        self.segments = segments
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        let value = try base.evaluate(scope, &budget)
        return ValuePath.navigate(value, segments)
    }
}

/// `c ? a : b`: only the chosen branch is evaluated; an error condition is an error.
final class ConditionalNode: ExpressionNode, @unchecked Sendable {
    let condition: ExpressionNode
    let whenTrue: ExpressionNode
    let whenFalse: ExpressionNode

    init(condition: ExpressionNode, whenTrue: ExpressionNode, whenFalse: ExpressionNode) {
        self.condition = condition
        self.whenTrue = whenTrue
        self.whenFalse = whenFalse
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        if try condition.evaluate(scope, &budget).isTruthy {
            return try whenTrue.evaluate(scope, &budget)
        }
        return try whenFalse.evaluate(scope, &budget)
    }
}
