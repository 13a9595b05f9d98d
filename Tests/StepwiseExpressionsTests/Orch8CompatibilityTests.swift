import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §5 "expressions" and "expression strings" rows, and the orch8 behaviours kept.
struct Orch8CompatibilityTests {
    static let extensions: [(String, String)] = [
        ("7 % 4", "3"), ("arr[1]", "2"), ("obj['a']", "1"), ("'a\\nb' == 'a' + '\\n' + 'b'", "true"), ("2e2", "200"),
        ("has(obj.c)", "true"), ("true ? 1 : 2", "1"), ("first(items).id", "\"a\""),
    ]

    @Test("extensions over orch8: %, indexing, escapes, exponents, has, ternary, member access", arguments: extensions)
    func extensionsWork(_ text: String, _ expected: String) throws {
        #expect(try evaluate(text) == .value(json(expected)))
    }

    @Test("arrays compare by value: [1,2] == [1.0,2.0] (orch8: by representation)")
    func arrayEqualityByValue() throws {
        #expect(try evaluate("[1, 2] != [1.0, 2.0]") == .value(false))
    }

    @Test("starts_with/ends_with with a non-string are false (orch8: true)")
    func startsWithNonString() throws {
        #expect(try evaluate("starts_with(s, 42)") == .value(false))
        #expect(try evaluate("ends_with(42, 2)") == .value(false))
    }

    @Test("unique compares by value (orch8: by text)")
    func uniqueByValue() throws {
        #expect(try evaluate("unique([1, 1.0, '1'])") == .value(json("[1, \"1\"]")))
    }

    @Test("orch8's two panics are error values here")
    func panicsAreErrorValues() throws {
        #expect(try evaluate("clamp(1, 10, 0)") == .error("clamp: lo 10 is greater than hi 0"))
        #expect(try evaluate("format_date('2024-01-01T00:00:00Z', '%')").errorMessage?.hasPrefix("format_date:") == true)
    }

    @Test("json([1]) is \"[1]\" (orch8: \"[1.0]\")")
    func jsonIntegral() throws {
        #expect(try evaluate("json([1])") == .value("[1]"))
        #expect(try evaluate("json([1.0, 1.5])") == .value("[1,1.5]"))
    }

    @Test("a backslash starts an escape (orch8: literal)")
    func backslashEscapes() throws {
        #expect(try evaluate("len('a\\\\b')") == .value(3))
        #expect(compileError("'a\\b'")?.message.contains("invalid escape") == true)
    }

    static let lenientInOrch8: [String] = ["status == 'ok", "(a == 1", "[1, 2", "5 ==", "!", "a or b", "a and b", "x = 1"]

    @Test("what orch8 routers accept silently is a compile error", arguments: lenientInOrch8)
    func strictSyntax(_ text: String) {
        #expect(compileError(text) != nil, "\(text)")
    }

    @Test("orch8-compatible: whole {{ }} unwrap, first-name, missing paths are null, len counts bytes")
    func kept() throws {
        #expect(try evaluate("{{ context.data.status == 'approved' }}") == .value(true))
        #expect(try evaluate("first-name", data: ["first": 3, "name": 1]) == .value(2))
        #expect(try evaluate("context.data.nope.deeper") == .value(.null))
        #expect(try evaluate("len('São')") == .value(4))
        #expect(try evaluate("runtime.attempt", runtime: RuntimeInfo(attempt: 0)) == .value(0))
    }

    @Test("compiled expressions are shareable across tasks")
    func concurrentEvaluation() async throws {
        let expression = try Expression.compile("context.data.terms_decision == 'declined' && n > 1")
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var all = true
                    for _ in 0..<200 {
                        all = all && expression.evaluate(EvaluationScope(data: sampleData)) == .value(true)
                    }
                    return all
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}
