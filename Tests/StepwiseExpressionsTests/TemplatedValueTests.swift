import StepwiseExpressions
import StepwiseJSON
import Testing

/// Templates at any depth of a JSON value (step params, sub_sequence input).
struct TemplatedValueTests {
    let base = JSONPointer(tokens: ["blocks", "0", "params"])

    @Test("static values are returned untouched")
    func staticValues() throws {
        let value = json(#"{"a": [1, "x", {"b": null}], "c": "no template {", "d": "}}"}"#)
        let compiled = TemplatedValue.compile(value, at: base)
        #expect(compiled.problems.isEmpty)
        let templated = try #require(compiled.value)
        #expect(templated.isStatic)
        #expect(try templated.resolve(EvaluationScope()) == value)
        #expect(TemplatedValue.compile(42, at: base).value?.isStatic == true)
    }

    @Test("strings at any depth are resolved; keys are not templated")
    func resolvesEverywhere() throws {
        let value = json(
            #"{"to": "{{ data.email }}", "{{ data.key }}": "k", "n": 3, "list": ["{{ data.n }}", "id-{{ data.n }}", true],"#
                + #" "deep": {"x": {"y": "{{ outputs.s.v | 'none' }}"}}}"#)
        let compiled = TemplatedValue.compile(value, at: base)
        let templated = try #require(compiled.value)
        #expect(!templated.isStatic)
        let scope = EvaluationScope(data: ["email": "a@b.c", "n": 2, "key": "nope"])
        let resolved = try templated.resolve(scope)
        #expect(
            resolved
                == json(
                    #"{"to": "a@b.c", "{{ data.key }}": "k", "n": 3, "list": [2, "id-2", true], "deep": {"x": {"y": "none"}}}"#))
        #expect(templated.original == value)
    }

    @Test("every problem is collected with its pointer below the given one")
    func problemsArePointed() throws {
        let value = json(#"{"a": "{{ nope.x }}", "b": ["ok", "{{ data.x | shout() }}"], "c": {"d~/e": "{{ }}"}}"#)
        let compiled = TemplatedValue.compile(value, at: base)
        #expect(compiled.value == nil)
        let byPointer = Dictionary(uniqueKeysWithValues: compiled.problems.map { ($0.pointer.description, $0.message) })
        #expect(byPointer.count == 3)
        #expect(byPointer["/blocks/0/params/a"]?.contains("unknown root 'nope'") == true)
        #expect(byPointer["/blocks/0/params/b/1"]?.contains("unknown filter 'shout'") == true)
        #expect(byPointer["/blocks/0/params/c/d~0~1e"]?.contains("empty template") == true)
    }

    @Test("warnings are located too")
    func warningsArePointed() throws {
        let compiled = TemplatedValue.compile(["a": ["{{ data.x | anon }}", "x {{ y"]], at: base)
        #expect(compiled.problems.isEmpty)
        #expect(compiled.warnings.map(\.pointer.description) == ["/blocks/0/params/a/0", "/blocks/0/params/a/1"])
        #expect(compiled.warnings[0].message.contains("bare word 'anon'"))
        #expect(compiled.warnings[1].message.contains("unclosed"))
    }

    @Test("a failing filter fails resolution with the pointer of the string")
    func runtimeFailure() throws {
        let compiled = TemplatedValue.compile(["token": "{{ data.t | base64_decode }}"], at: base)
        let templated = try #require(compiled.value)
        do {
            _ = try templated.resolve(EvaluationScope(data: ["t": "***"]))
            Issue.record("expected a TemplateError")
        } catch {
            #expect(error.message.contains("base64_decode: invalid base64 input"))
            #expect(error.message.contains("/blocks/0/params/token"))
        }
    }
}
