import StepwiseJSON

/// One argument of a filter as written in a template: `round(2)`, `join(', ')`,
/// `replace('a', data.b)`.
enum TemplateArgument: Sendable {
    case quoted(String)
    case integer(Int64)
    case number(JSONValue)
    case literal(JSONValue)
    case path(ValuePath, String)
    case invalid(String)

    /// The argument as an author would recognise it in a message.
    var text: String {
        switch self {
        case .quoted(let s): "'\(s)'"
        case .integer(let i): String(i)
        // A refused `2.0` is shown as a fraction, not as the integer it equals.
        case .number(.double(let d)) where d.isFinite && d.rounded(.towardZero) == d && d.magnitude < 1e16: "\(d)"
        case .number(let v), .literal(let v): ValueSemantics.compactJSON(v)
        case .path(_, let t), .invalid(let t): t
        }
    }

    /// The value of a literal argument (quoted string, number, `true`, `false`, `null`).
    var literalValue: JSONValue? {
        switch self {
        case .quoted(let s): .string(s)
        case .integer(let i): .integer(i)
        case .number(let v), .literal(let v): v
        case .path, .invalid: nil
        }
    }
}
