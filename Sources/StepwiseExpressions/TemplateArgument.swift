import StepwiseJSON

/// One argument of a filter as written in a template: `round(2)`, `join(', ')`,
/// `replace('a', data.b)`.
enum TemplateArgument: Sendable {
    case quoted(String)
    case integer(Int64)
    /// A number that is not an `Int64` (a fraction, an exponent, digits past 2⁶³), with its text.
    case number(JSONValue, written: String)
    case literal(JSONValue)
    case path(ValuePath, String)
    case invalid(String)

    /// The argument as an author would recognise it in a message.
    var text: String {
        switch self {
        case .quoted(let s): "'\(s)'"
        case .integer(let i): String(i)
        // As written: a refused `2.0` or `1e20` is shown as the author wrote it.
        case .number(_, let written): written
        case .literal(let v): ValueSemantics.compactJSON(v)
        case .path(_, let t), .invalid(let t): t
        }
    }

    /// The value of a literal argument (quoted string, number, `true`, `false`, `null`).
    var literalValue: JSONValue? {
        switch self {
        case .quoted(let s): .string(s)
        case .integer(let i): .integer(i)
        case .number(let v, _), .literal(let v): v
        case .path, .invalid: nil
        }
    }
}
