public import StepwiseJSON

/// The outcome of evaluating an ``Expression``: a JSON value, or a runtime error as a value.
///
/// Runtime errors never crash and are never thrown: `clamp` with lo > hi, an invalid
/// `format_date` conversion and the cost budget produce ``error(_:)`` (SEMANTICS §3.8).
///
/// ```swift
/// let result = try Expression.compile("clamp(3, 5, 1)").evaluate(EvaluationScope())
/// // .error("clamp: lo 5 is greater than hi 1")
/// ```
public enum EvaluationResult: Sendable, Hashable {
    /// The expression produced this value.
    case value(JSONValue)
    /// The expression failed at run time with this message.
    case error(String)

    /// The value, or `nil` for an error.
    public var value: JSONValue? {
        if case .value(let v) = self { return v }
        return nil
    }

    /// The error message, or `nil` for a value.
    public var errorMessage: String? {
        if case .error(let m) = self { return m }
        return nil
    }

    /// What a router, `when` or loop acts on: `true` when the value is truthy (§3.5), `false`
    /// when it is falsy, `nil` for an error (the block fails).
    public var truthiness: Bool? {
        if case .value(let v) = self { return v.isTruthy }
        return nil
    }
}
