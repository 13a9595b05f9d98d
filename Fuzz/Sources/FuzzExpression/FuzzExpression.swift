import FuzzSupport
import Stepwise

/// Fuzzes `Expression.compile` and `evaluate`.
///
/// The input's bytes are the condition text (invalid UTF-8 is repaired, as a JSON string would
/// have been rejected before). Invariants: a compile error has a position inside the text and a
/// bounded message; evaluation never traps, is deterministic for a fresh scope (the random
/// source is seeded), agrees with `isTruthy(in:)`, and produces only values that are valid JSON
/// (no NaN or infinity, round-trips through the writer).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExpression(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    let expression: Expression
    do {
        expression = try Expression.compile(text)
    } catch {
        let scalars = text.unicodeScalars.count
        fuzzCheck(error.position >= 0 && error.position <= scalars, "position \(error.position) outside 0...\(scalars)")
        checkMessage(error.message, "ExpressionError")
        fuzzCheck(
            error.description.hasPrefix("expression error at position \(error.position): "), "description format")
        return 0
    }
    fuzzCheck(expression.source == text, "the expression does not keep its source")
    let first = expression.evaluate(FuzzScope.make())
    let second = expression.evaluate(FuzzScope.make())
    fuzzCheck(first == second, "evaluation is not deterministic: \(first) vs \(second)")
    fuzzCheck(expression.isTruthy(in: FuzzScope.make()) == first.truthiness, "isTruthy disagrees with evaluate")
    switch first {
    case .value(let value):
        JSONInvariants.checkRoundTrip(value, "expression result")
    case .error(let message):
        checkMessage(message, "runtime error")
    }
    return 0
}
