import StepwiseJSON

/// A call of a built-in function (SEMANTICS §3.7). Arguments are evaluated left to right; the
/// first argument error is the call's error.
final class FunctionCallNode: ExpressionNode, @unchecked Sendable {
    let function: BuiltinFunction
    let arguments: [ExpressionNode]

    init(function: BuiltinFunction, arguments: [ExpressionNode]) {
        self.function = function
        self.arguments = arguments
    }

    @inline(__always)
    private func argument(
        _ i: Int, _ scope: EvaluationScope, _ budget: inout CostBudget
    ) throws(EvaluationFailure) -> JSONValue {
        try arguments[i].evaluate(scope, &budget)
    }

    @inline(__always)
    private func optionalArgument(
        _ i: Int, _ scope: EvaluationScope, _ budget: inout CostBudget
    ) throws(EvaluationFailure) -> JSONValue? {
        // Spelled out: a bare `nil` here would be JSONValue's nil literal, i.e. `.null`.
        guard i < arguments.count else { return Optional<JSONValue>.none }
        return try arguments[i].evaluate(scope, &budget)
    }

    override func evaluate(_ scope: EvaluationScope, _ budget: inout CostBudget) throws(EvaluationFailure) -> JSONValue {
        try budget.charge(1)
        switch function {
        case .has:
            // Compiled to HasNode; never reached.
            return .bool(false)
        case .abs:
            return FunctionLibrary.abs(try argument(0, scope, &budget))
        case .len:
            return FunctionLibrary.len(try argument(0, scope, &budget))
        case .json:
            return try FunctionLibrary.json(try argument(0, scope, &budget), &budget)
        case .now:
            return .string(CivilTime(unixMilliseconds: scope.nowMilliseconds).rfc3339UTC)
        case .uuid:
            return .string(FunctionLibrary.uuid(scope.random))
        case .random:
            let lo = try optionalArgument(0, scope, &budget)
            let hi = try optionalArgument(1, scope, &budget)
            return FunctionLibrary.random(lo, hi, scope.random)
        case .formatDate:
            let iso = try argument(0, scope, &budget)
            let format = try optionalArgument(1, scope, &budget)
            return try FunctionLibrary.formatDate(iso, format, &budget)
        case .dayOfWeek:
            return FunctionLibrary.dayOfWeek(try argument(0, scope, &budget))
        case .keys:
            return try FunctionLibrary.keys(try argument(0, scope, &budget), &budget)
        case .values:
            return try FunctionLibrary.values(try argument(0, scope, &budget), &budget)
        case .contains:
            let h = try argument(0, scope, &budget)
            let n = try argument(1, scope, &budget)
            return try FunctionLibrary.contains(h, n, &budget)
        case .startsWith:
            let s = try argument(0, scope, &budget)
            let p = try argument(1, scope, &budget)
            return try FunctionLibrary.startsWith(s, p, &budget)
        case .endsWith:
            let s = try argument(0, scope, &budget)
            let p = try argument(1, scope, &budget)
            return try FunctionLibrary.endsWith(s, p, &budget)
        case .sum:
            return try FunctionLibrary.sum(try argument(0, scope, &budget), &budget)
        case .avg:
            return try FunctionLibrary.average(try argument(0, scope, &budget), &budget)
        case .min:
            return try FunctionLibrary.extreme(try argument(0, scope, &budget), largest: false, &budget)
        case .max:
            return try FunctionLibrary.extreme(try argument(0, scope, &budget), largest: true, &budget)
        case .first:
            return try FunctionLibrary.element(try argument(0, scope, &budget), last: false, &budget)
        case .last:
            return try FunctionLibrary.element(try argument(0, scope, &budget), last: true, &budget)
        case .slice:
            let a = try argument(0, scope, &budget)
            let start = try optionalArgument(1, scope, &budget)
            let end = try optionalArgument(2, scope, &budget)
            return try FunctionLibrary.slice(a, start, end, &budget)
        case .sort:
            let a = try argument(0, scope, &budget)
            let order = try optionalArgument(1, scope, &budget)
            return try FunctionLibrary.sort(a, order, &budget)
        case .unique:
            return try FunctionLibrary.unique(try argument(0, scope, &budget), &budget)
        case .count:
            let a = try argument(0, scope, &budget)
            let x = try argument(1, scope, &budget)
            return try FunctionLibrary.count(a, x, &budget)
        case .changePct:
            let old = try argument(0, scope, &budget)
            let new = try argument(1, scope, &budget)
            return FunctionLibrary.changePercent(old, new)
        case .clamp:
            let v = try argument(0, scope, &budget)
            let lo = try argument(1, scope, &budget)
            let hi = try argument(2, scope, &budget)
            return try FunctionLibrary.clamp(v, lo, hi)
        }
    }
}
