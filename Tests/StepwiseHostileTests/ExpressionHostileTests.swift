import Stepwise
import Testing

/// `Fixtures/hostile/expression`: `Expression.compile`, then `evaluate` against a scope whose
/// `context.data` is the sidecar's `data` (or `data_generate`, a recipe for JSON text too large
/// to commit; default `{}`).
///
/// `expect` is `{"compile_error": {"message", "position"?}}`, `{"runtime_error": "<substring>"}`,
/// or a value: `value`, `value_type`, `value_string_bytes`.
@Suite(.serialized)
struct ExpressionHostileTests {
    @Test(arguments: HostileCorpus.cases("expression"))
    func compilesAndEvaluatesCleanly(_ c: HostileCase) throws {
        try Self.check(c)
    }

    @Test(.enabled(if: HostileCorpus.runKnownBugs), arguments: HostileCorpus.cases("expression", knownBugs: true))
    func knownBugReproducers(_ c: HostileCase) throws {
        try Self.check(c)
    }

    enum Outcome: Sendable {
        case compileError(ExpressionError)
        case evaluated(EvaluationResult)
    }

    static func check(_ c: HostileCase) throws {
        Expect.knownKeys(c, ["compile_error", "runtime_error", "value", "value_type", "value_string_bytes"])
        let text = String(decoding: try c.input(), as: UTF8.self)
        let data = try c.json("data", fallback: [:])
        guard
            let outcome = Expect.bounded(c, { () -> Outcome in
                do throws(ExpressionError) {
                    let expression = try Expression.compile(text)
                    return .evaluated(expression.evaluate(EvaluationScope(data: data)))
                } catch {
                    return .compileError(error)
                }
            })
        else { return }
        let e = c.expect
        switch outcome {
        case .compileError(let error):
            guard let expected = e["compile_error"]?.objectValue else {
                Issue.record("\(c.testDescription): does not compile: \(error)")
                return
            }
            if let position = expected["position"]?.exactIntegerValue {
                #expect(error.position == Int(position), "\(c.testDescription): position \(error.position)")
            }
            #expect(error.description.hasPrefix("expression error at position \(error.position): "))
            Expect.message(error.message, contains: expected["message"]?.stringValue, c)
        case .evaluated(.error(let message)):
            guard let expected = e["runtime_error"]?.stringValue else {
                Issue.record("\(c.testDescription): runtime error: \(message)")
                return
            }
            Expect.message(message, contains: expected, c)
        case .evaluated(.value(let value)):
            #expect(
                e["compile_error"] == nil && e["runtime_error"] == nil,
                "\(c.testDescription): evaluated to \(Expect.describe(value))")
            if let expected = e["value"] {
                #expect(value == expected, "\(c.testDescription): \(Expect.describe(value)) ≠ \(Expect.describe(expected))")
            }
            if let type = e["value_type"]?.stringValue {
                #expect(value.typeName == type, "\(c.testDescription): a \(value.typeName)")
            }
            if let n = e["value_string_bytes"]?.exactIntegerValue {
                #expect(value.stringValue?.utf8.count == Int(n), "\(c.testDescription): not a string of \(n) bytes")
            }
        }
    }
}
