public import StepwiseJSON

extension JSONValue {
    /// Truthiness as conditions see it (SEMANTICS §3.5).
    ///
    /// Falsy: `null`, `false`, `0`, `-0`, `""`, `[]`. Truthy: everything else, including the
    /// strings `"false"` and `"0"` and every object, even `{}`.
    ///
    /// ```swift
    /// JSONValue.object([:]).isTruthy   // true
    /// JSONValue.string("").isTruthy    // false
    /// ```
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .integer(let i): return i != 0
        case .double(let d): return d != 0
        case .string(let s): return !s.utf8.isEmpty
        case .array(let a): return !a.isEmpty
        case .object: return true
        }
    }
}
