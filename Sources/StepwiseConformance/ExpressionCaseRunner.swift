import StepwiseExpressions
import StepwiseJSON

/// Compiles an expression case exactly as a router condition and evaluates it once.
enum ExpressionCaseRunner {
    /// `nil` when the case passes, else what differed.
    static func run(_ c: ExpressionCase) -> String? {
        let compiled: Expression
        do {
            compiled = try Expression.compile(c.expression)
        } catch {
            guard let expected = c.expectedError else { return "compile error: \(error)" }
            return expected.isEmpty || error.description.contains(expected)
                ? nil : "compile error \"\(error)\" does not contain \"\(expected)\""
        }
        let scope = EvaluationScope(data: c.data, config: c.config, outputs: c.outputs)
        switch compiled.evaluate(scope) {
        case .error(let message):
            guard let expected = c.expectedError else { return "runtime error: \(message)" }
            return expected.isEmpty || message.contains(expected)
                ? nil : "runtime error \"\(message)\" does not contain \"\(expected)\""
        case .value(let value):
            if let expected = c.expectedError {
                return "evaluated to \(JSONWriter.string(value)), expected an error containing \"\(expected)\""
            }
            var failures: [String] = []
            if let expected = c.expected, let m = DeepSubset.exactMismatch(expected: expected, actual: value) {
                failures.append(m)
            }
            if let truthy = c.expectedTruthy, value.isTruthy != truthy {
                failures.append("truthiness is \(value.isTruthy), expected \(truthy)")
            }
            return failures.isEmpty ? nil : failures.joined(separator: "; ")
        }
    }
}

extension DeepSubset {
    /// Exact JSON equality with numbers by value at any depth.
    static func exactMismatch(expected: JSONValue, actual: JSONValue) -> String? {
        expected == actual ? nil : "value is \(JSONWriter.string(actual)), expected \(JSONWriter.string(expected))"
    }
}
