import StepwiseExpressions
import StepwiseJSON

/// Parses JSON text written in a test table.
func json(_ text: String) -> JSONValue {
    do {
        return try JSONParser.parse(text)
    } catch {
        fatalError("bad JSON in test table: \(text): \(error)")
    }
}

/// The data most expression tables run against.
let sampleData = json(
    """
    {"s": "abc", "n": 5, "f": 2.5, "t": true, "fl": false, "z": 0, "e": "", "arr": [1, 2, 3], "empty": [],
     "obj": {"a": 1, "b": [10, 20], "c": null}, "eobj": {}, "nul": null,
     "o1": {"a": 1, "b": 2}, "o2": {"b": 2.0, "a": 1}, "input": {"x": 7},
     "runtime": "shadowed", "steps": "shadowed-steps", "items": [{"id": "a"}, {"id": "b"}],
     "status": "approved", "terms_decision": "declined", "nested": {"deep": {"value": 42}},
     "list": ["x", "y"], "strnum": "42", "sao": "São", "first-name": "Ada"}
    """)

/// Compiles and evaluates `text` against a scope.
func evaluate(
    _ text: String, data: JSONValue = sampleData, config: JSONValue = [:], outputs: JSONObject = [:],
    runtime: RuntimeInfo = RuntimeInfo(), now: Int64 = 0, seed: UInt64 = 0
) throws -> EvaluationResult {
    let expression = try Expression.compile(text)
    let scope = EvaluationScope(
        data: data, config: config, outputs: outputs, runtime: runtime, nowMilliseconds: now,
        random: RandomSource(seed: seed))
    return expression.evaluate(scope)
}

/// The compile error of `text`, or `nil` when it compiles.
func compileError(_ text: String) -> ExpressionError? {
    do {
        _ = try Expression.compile(text)
        return nil
    } catch {
        return error
    }
}

/// Whether two JSON values are equal with the same number representation at the top level
/// (integer vs double), on top of JSON equality.
func sameKind(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.integer, .integer), (.double, .double): return a == b
    case (.integer, .double), (.double, .integer): return false
    default: return a == b
    }
}

/// Renders a template string against a scope.
func render(
    _ text: String, data: JSONValue = sampleData, config: JSONValue = [:], outputs: JSONObject = [:],
    runtime: RuntimeInfo = RuntimeInfo()
) throws -> JSONValue {
    let template = try Template.compile(text)
    return try template.render(EvaluationScope(data: data, config: config, outputs: outputs, runtime: runtime))
}

/// The load error of a template string, or `nil` when it compiles.
func templateError(_ text: String) -> TemplateError? {
    do {
        _ = try Template.compile(text)
        return nil
    } catch {
        return error
    }
}
