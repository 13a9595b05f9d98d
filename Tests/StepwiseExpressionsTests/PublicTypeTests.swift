import StepwiseExpressions
import StepwiseJSON
import Testing

/// The small public types other modules build on.
struct PublicTypeTests {
    @Test("EvaluationResult accessors")
    func resultAccessors() {
        let value = EvaluationResult.value(0)
        #expect(value.value == 0)
        #expect(value.errorMessage == nil)
        #expect(value.truthiness == false)
        let error = EvaluationResult.error("boom")
        #expect(error.value == nil)
        #expect(error.errorMessage == "boom")
        #expect(error.truthiness == nil)
        #expect(EvaluationResult.value([:]).truthiness == true)
    }

    @Test("ExpressionError keeps position and message")
    func expressionError() {
        let error = ExpressionError(position: 3, message: "unknown function 'foo'")
        #expect(error.position == 3)
        #expect(error.message == "unknown function 'foo'")
        #expect(error == ExpressionError(position: 3, message: "unknown function 'foo'"))
    }

    @Test("EvaluationScope defaults are empty and neutral")
    func scopeDefaults() throws {
        let scope = EvaluationScope()
        #expect(scope.data == [:])
        #expect(scope.config == [:])
        #expect(scope.outputs.isEmpty)
        #expect(scope.nowMilliseconds == 0)
        #expect(scope.runtime == RuntimeInfo())
        #expect(try Expression.compile("runtime.sequence_version").evaluate(scope) == .value(0))
    }

    @Test("isTruthy(in:) reduces a result to what a router acts on")
    func isTruthyIn() throws {
        let e = try Expression.compile("n > 1")
        #expect(e.isTruthy(in: EvaluationScope(data: ["n": 2])) == true)
        #expect(e.isTruthy(in: EvaluationScope(data: ["n": 0])) == false)
    }

    @Test("a JSONValue is truthy as §3.5 says")
    func truthiness() {
        #expect(JSONValue.double(-0.0).isTruthy == false)
        #expect(JSONValue.string("0").isTruthy)
        #expect(JSONValue.object([:]).isTruthy)
        #expect(JSONValue.array([]).isTruthy == false)
    }
}
