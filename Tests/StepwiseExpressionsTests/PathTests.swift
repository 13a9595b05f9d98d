import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §3.4: roots, navigation, postfix `[e]` and `.member`.
struct PathTests {
    static let outputs: JSONObject = ["step-1": ["ok": true, "items": [1, 2]], "fetch": ["user": ["name": "Ada"]]]
    static let config: JSONValue = ["region": "eu", "limits": ["max": 3]]
    static let runtime = RuntimeInfo(
        attempt: 2, instanceId: "0000-ab", sequenceName: "onboarding", sequenceVersion: 7, currentStep: "check",
        startedAt: "2024-01-02T03:04:05.000Z", currentStepStartedAt: nil, totalStepsExecuted: 11)

    static let paths: [(String, String)] = [
        ("context.data.s", "\"abc\""), ("data.s", "\"abc\""), ("s", "\"abc\""), ("context.data.nested.deep.value", "42"),
        ("data.nested.deep.value", "42"), ("nested.deep.value", "42"), ("nested.deep.missing", "null"),
        ("nested.deep.value.more", "null"), ("missing.a.b", "null"), ("context.config.region", "\"eu\""),
        ("config.limits.max", "3"), ("config.nothing", "null"), ("context", "null"), ("context.foo", "null"),
        ("context.s", "null"), ("outputs.fetch.user.name", "\"Ada\""), ("steps.fetch.user.name", "\"Ada\""),
        ("outputs.nope.x", "null"), ("input.x", "7"), ("input", "{\"x\": 7}"), ("context.data.input.x", "7"),
        ("instance_id", "\"0000-ab\""), ("instance_id.whatever", "\"0000-ab\""), ("runtime.attempt", "2"),
        ("runtime.instance_id", "\"0000-ab\""), ("runtime.sequence_name", "\"onboarding\""),
        ("runtime.sequence_version", "7"), ("runtime.current_step", "\"check\""),
        ("runtime.started_at", "\"2024-01-02T03:04:05.000Z\""), ("runtime.current_step_started_at", "null"),
        ("runtime.total_steps_executed", "11"), ("runtime.dry_run", "false"), ("runtime.unknown", "null"),
        ("context.data.runtime", "\"shadowed\""), ("context.data['runtime']", "\"shadowed\""),
        ("data.steps", "\"shadowed-steps\""), ("arr.0", "1"), ("arr.2", "3"), ("arr.3", "null"), ("arr.00", "1"),
        ("arr.x", "null"), ("items.1.id", "\"b\""), ("s.0", "null"), ("obj.c", "null"), ("obj.b.1", "20"),
        ("arr[0]", "1"), ("arr[1.0]", "2"), ("arr[1.5]", "null"), ("arr[-1]", "null"), ("arr[3]", "null"),
        ("arr['0']", "null"), ("obj['a']", "1"), ("obj[s]", "null"), ("obj[0]", "null"), ("s[0]", "null"),
        ("items[1].id", "\"b\""), ("items[n - 4].id", "\"b\""), ("[10, 20, 30][2]", "30"),
        ("data['first-name']", "\"Ada\""), ("outputs['step-1'].ok", "true"), ("outputs['step-1'].items.1", "2"),
        ("steps['step-1'].ok", "true"), ("keys(outputs)", "[\"fetch\", \"step-1\"]"),
        ("obj.b[0]", "10"), ("(obj).b.0", "10"), ("abs(-3)", "3"), ("[obj][0].a", "1"),
        ("items[0]['id']", "\"a\""), ("true.x", "null"), ("in_x", "null"),
    ]

    @Test("path roots and navigation", arguments: paths)
    func resolves(_ text: String, _ expected: String) throws {
        let result = try evaluate(text, config: Self.config, outputs: Self.outputs, runtime: Self.runtime)
        #expect(result == .value(json(expected)))
    }

    @Test("outputs and steps alone are the object of latest outputs")
    func outputsAlone() throws {
        #expect(try evaluate("outputs", outputs: Self.outputs) == .value(.object(Self.outputs)))
        #expect(try evaluate("steps", outputs: Self.outputs) == .value(.object(Self.outputs)))
    }

    @Test("runtime alone is an object of every runtime field")
    func runtimeAlone() throws {
        let value = try #require(try evaluate("runtime", runtime: Self.runtime).value)
        #expect(value["attempt"] == 2)
        #expect(value["dry_run"] == false)
        #expect(value["current_step_started_at"] == .null)
    }

    static let hasCases: [(String, Bool)] = [
        ("has(s)", true), ("has(nul)", true), ("has(obj.c)", true), ("has(missing)", false), ("has(obj.zz)", false),
        ("has(arr.2)", true), ("has(arr.3)", false), ("has(data)", true), ("has(context.data.s)", true),
        ("has(context)", false), ("has(context.foo)", false), ("has(config.region)", true), ("has(config.x)", false),
        ("has(outputs.fetch.user)", true), ("has(outputs.fetch.user.age)", false), ("has(steps.fetch)", true),
        ("has(outputs)", true), ("has(input.x)", true), ("has(input.y)", false), ("has(instance_id)", true),
        ("has(runtime.attempt)", true), ("has(runtime.nope)", false), ("has((s))", true),
    ]

    @Test("has(): every segment exists, even with a null value", arguments: hasCases)
    func hasFunction(_ text: String, _ expected: Bool) throws {
        #expect(try evaluate(text, config: Self.config, outputs: Self.outputs) == .value(.bool(expected)))
    }

    @Test("a path into a non-object data root is null, never an error")
    func navigationNeverFails() throws {
        #expect(try evaluate("a.b.c", data: 42) == .value(.null))
        #expect(try evaluate("x", data: ["x": [1]]) == .value([1]))
    }
}
