import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §3.8: runtime errors are values; propagation and the absorption table.
struct RuntimeErrorTests {
    static let err = "clamp(1, 5, 1)"
    static let message = "clamp: lo 5 is greater than hi 1"

    static let absorption: [(String, String?)] = [
        ("false && \(err)", "false"), ("\(err) && false", "false"), ("true || \(err)", "true"),
        ("\(err) || true", "true"), ("true && \(err)", nil), ("\(err) && true", nil), ("false || \(err)", nil),
        ("\(err) || false", nil), ("\(err) ? 1 : 2", nil), ("\(err) && \(err)", nil), ("\(err) || \(err)", nil),
        ("\(err) && true && false", "false"), ("true && \(err) && 0", "false"), ("\(err) || 0 || 'x'", "true"),
        ("0 && \(err)", "false"), ("'' || \(err) || []", nil), ("!(\(err) && false)", "true"),
        ("(false && \(err)) == false", "true"),
    ]

    @Test("&& and || absorb errors as the table says; ?: does not", arguments: absorption)
    func absorptionTable(_ text: String, _ expected: String?) throws {
        let result = try evaluate(text)
        if let expected {
            #expect(result == .value(json(expected)), "\(text)")
        } else {
            #expect(result == .error(Self.message), "\(text)")
        }
    }

    static let propagation: [String] = [
        "\(err) + 1", "1 + \(err)", "-\(err)", "!\(err)", "\(err) == 1", "1 == \(err)", "\(err) < 1", "1 in [\(err)]",
        "\(err) in [1]", "[1, \(err)]", "abs(\(err))", "len(\(err))", "json(\(err))", "\(err)[0]", "arr[\(err)]",
        "(\(err)).a", "true ? \(err) : 1", "false ? 1 : \(err)", "sum([\(err)])", "contains(\(err), 1)",
        "clamp(\(err), 1, 2)", "format_date(\(err))",
    ]

    @Test("any operator or function given an error yields that error", arguments: propagation)
    func propagates(_ text: String) throws {
        #expect(try evaluate(text) == .error(Self.message), "\(text)")
    }

    @Test("the first error wins")
    func firstErrorWins() throws {
        let other = "format_date('2024-01-01T00:00:00Z', '%Q')"
        #expect(try evaluate("\(Self.err) + \(other)") == .error(Self.message))
        #expect(try evaluate("\(other) && \(Self.err)").errorMessage?.hasPrefix("format_date:") == true)
        #expect(try evaluate("\(Self.err) && \(other)") == .error(Self.message))
    }

    @Test("a runtime error makes a condition neither truthy nor falsy")
    func errorTruthiness() throws {
        let result = try evaluate(Self.err)
        #expect(result.truthiness == nil)
        #expect(try Expression.compile(Self.err).isTruthy(in: EvaluationScope()) == nil)
        #expect(result.value == nil)
    }

    @Test("the cost budget stops runaway evaluation with a runtime error")
    func costLimit() throws {
        let big = JSONValue.array(Array(repeating: 1, count: 100_000))
        // Each sum touches 100,000 elements: ten of them stay under 1,000,000 units, eleven do not.
        let ten = Array(repeating: "sum(a)", count: 9).joined(separator: " + ")
        #expect(try evaluate(ten, data: ["a": big]) == .value(900_000))
        let eleven = Array(repeating: "sum(a)", count: 11).joined(separator: " + ")
        #expect(try evaluate(eleven, data: ["a": big]) == .error("evaluation cost limit exceeded"))
        // Not absorbed by && / ||: every later node fails too.
        let guarded = "(\(eleven)) > 0 || true"
        #expect(try evaluate(guarded, data: ["a": big]) == .error("evaluation cost limit exceeded"))
        let sorted = Array(repeating: "len(slice(a))", count: 11).joined(separator: " + ")
        #expect(try evaluate(sorted, data: ["a": big]) == .error("evaluation cost limit exceeded"))
    }

    @Test("string functions are charged per 64 bytes")
    func stringCost() throws {
        let s = JSONValue.string(String(repeating: "x", count: 6_400_000))
        // contains() touches 100,000 units per call.
        let ten = Array(repeating: "contains(s, 'y')", count: 9).joined(separator: " || ")
        #expect(try evaluate(ten, data: ["s": s]) == .value(false))
        let twelve = Array(repeating: "contains(s, 'y')", count: 11).joined(separator: " || ")
        #expect(try evaluate(twelve, data: ["s": s]) == .error("evaluation cost limit exceeded"))
    }

    @Test("evaluating again starts with a fresh budget")
    func budgetIsPerEvaluation() throws {
        let big = JSONValue.array(Array(repeating: 1, count: 100_000))
        let expression = try Expression.compile(Array(repeating: "sum(a)", count: 9).joined(separator: " + "))
        let scope = EvaluationScope(data: ["a": big])
        for _ in 0..<3 { #expect(expression.evaluate(scope) == .value(900_000)) }
    }
}
