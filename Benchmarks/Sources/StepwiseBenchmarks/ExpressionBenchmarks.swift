import BenchmarkHarness
import Stepwise

/// Evaluating compiled conditions, against hand-written Swift closures doing the same lookups
/// and comparisons on the same `JSONValue`.
enum ExpressionBenchmarks {
    static let simpleSource = "context.data.terms_decision == 'declined'"
    static let tenOperatorSource =
        "data.a > 1 && data.b < 10 && data.c == 'x' && data.d != null && data.e >= 2"
        + " && data.f <= 5 && data.g == true && data.h != 'y' && data.i > 0.5 && data.j < 100"

    /// Every comparison is true, so `&&` never short-circuits and all ten run.
    static let data: JSONValue = [
        "terms_decision": "declined",
        "a": 5, "b": 3, "c": "x", "d": 1, "e": 2, "f": 5, "g": true, "h": "z", "i": 0.75, "j": 42,
        "user": ["name": "Ada", "tier": "gold"],
    ]

    static var all: [Benchmark] {
        var simple: Expression?
        var tenOperator: Expression?
        // Built once: evaluation only is measured.
        var scope = EvaluationScope()
        let simpleClosure = opaque(simpleByHand)
        let tenOperatorClosure = opaque(tenOperatorsByHand)
        return [
            Benchmark(
                "expression/evaluate-simple",
                baseline: Baseline("hand-written Swift closure") { blackHole(simpleClosure(data)) },
                targets: [.opsPerSecond(atLeast: 5_000_000), .withinFactorOfBaseline(5)],
                setUp: {
                    simple = try Expression.compile(simpleSource)
                    scope = EvaluationScope(data: data)
                    try check(simple!.evaluate(scope), source: simpleSource)
                }
            ) {
                blackHole(simple.unsafelyUnwrapped.evaluate(scope))
            },
            Benchmark(
                "expression/evaluate-10-operators",
                baseline: Baseline("hand-written Swift closure") { blackHole(tenOperatorClosure(data)) },
                targets: [.opsPerSecond(atLeast: 1_000_000)],
                setUp: {
                    tenOperator = try Expression.compile(tenOperatorSource)
                    scope = EvaluationScope(data: data)
                    try check(tenOperator!.evaluate(scope), source: tenOperatorSource)
                    guard tenOperatorsByHand(data) else { throw FixtureError(description: "closure is false") }
                }
            ) {
                blackHole(tenOperator.unsafelyUnwrapped.evaluate(scope))
            },
        ]
    }

    /// Throws unless the condition evaluated to `true`.
    static func check(_ result: EvaluationResult, source: String) throws {
        guard result == .value(true) else {
            throw FixtureError(description: "\(source) evaluated to \(result), expected true")
        }
    }

    /// Hides a closure from the optimiser, as a stored condition would be.
    @inline(never)
    static func opaque(_ f: @escaping (JSONValue) -> Bool) -> (JSONValue) -> Bool { f }

    /// `context.data.terms_decision == 'declined'`, by hand.
    static func simpleByHand(_ data: JSONValue) -> Bool {
        data["terms_decision"] == .string("declined")
    }

    /// The ten comparisons, by hand, with the language's rules: numbers by value, strings and
    /// booleans by equality, `!= null` true for anything present and not null.
    static func tenOperatorsByHand(_ data: JSONValue) -> Bool {
        func number(_ key: String) -> Double? { data[key]?.numberValue }
        guard let a = number("a"), a > 1 else { return false }
        guard let b = number("b"), b < 10 else { return false }
        guard data["c"] == .string("x") else { return false }
        guard let d = data["d"], !d.isNull else { return false }
        guard let e = number("e"), e >= 2 else { return false }
        guard let f = number("f"), f <= 5 else { return false }
        guard data["g"] == .bool(true) else { return false }
        guard data["h"] != .string("y") else { return false }
        guard let i = number("i"), i > 0.5 else { return false }
        guard let j = number("j"), j < 100 else { return false }
        return true
    }
}
