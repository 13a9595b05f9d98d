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

/// A postfix chain `base[e].a.b[f]…`: the accesses are applied in a loop, so a chain of any
/// length (within the 16 KiB text limit) costs no stack per access. Each access is one node
/// evaluated (one unit); `[e]` takes an element of an array by an integral in-range number or
/// a member of an object by a string, anything else is null.
final class PostfixChainNode: ExpressionNode, @unchecked Sendable {
    enum Access {
        case index(ExpressionNode)
        case member([PathSegment])
    }

    let base: ExpressionNode
    let accesses: [Access]

    init(base: ExpressionNode, accesses: [Access]) {
        self.base = base
        self.accesses = accesses
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(accesses.count)
        var value = try base.evaluate(scope, &budget)
        for access in accesses {
            switch access {
            case .index(let subscriptNode):
                value = Self.element(of: value, at: try subscriptNode.evaluate(scope, &budget))
            case .member(let segments):
                value = ValuePath.navigate(value, segments)
            }
        }
        return value
    }

    static func element(of container: JSONValue, at key: JSONValue) -> JSONValue {
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
