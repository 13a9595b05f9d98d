import Stepwise
import Testing

/// `Fixtures/hostile/template`: `Template.compile`, then `render` against a scope whose
/// `context.data` is the sidecar's `data` (or `data_generate`; default `{}`).
///
/// `expect` is `{"compile_error": "<substring>"}`, `{"render_error": "<substring>"}`, or a value:
/// `value`, `string_bytes`.
@Suite(.serialized)
struct TemplateHostileTests {
    @Test(arguments: HostileCorpus.cases("template"))
    func compilesAndRendersCleanly(_ c: HostileCase) throws {
        try Self.check(c)
    }

    @Test(.enabled(if: HostileCorpus.runKnownBugs), arguments: HostileCorpus.cases("template", knownBugs: true))
    func knownBugReproducers(_ c: HostileCase) throws {
        try Self.check(c)
    }

    enum Outcome: Sendable {
        case compileError(TemplateError)
        case renderError(TemplateError)
        case rendered(JSONValue)
    }

    static func check(_ c: HostileCase) throws {
        Expect.knownKeys(c, ["compile_error", "render_error", "value", "string_bytes"])
        let text = String(decoding: try c.input(), as: UTF8.self)
        let data = try c.json("data", fallback: [:])
        guard
            let outcome = Expect.bounded(c, { () -> Outcome in
                let template: Template
                do throws(TemplateError) {
                    template = try Template.compile(text)
                } catch {
                    return .compileError(error)
                }
                do throws(TemplateError) {
                    return .rendered(try template.render(EvaluationScope(data: data)))
                } catch {
                    return .renderError(error)
                }
            })
        else { return }
        let e = c.expect
        switch outcome {
        case .compileError(let error):
            guard let expected = e["compile_error"]?.stringValue else {
                Issue.record("\(c.testDescription): does not compile: \(error)")
                return
            }
            Expect.message(error.message, contains: expected, c)
        case .renderError(let error):
            guard let expected = e["render_error"]?.stringValue else {
                Issue.record("\(c.testDescription): render error: \(error)")
                return
            }
            Expect.message(error.message, contains: expected, c)
        case .rendered(let value):
            #expect(
                e["compile_error"] == nil && e["render_error"] == nil,
                "\(c.testDescription): rendered \(Expect.describe(value))")
            Expect.value(value, c)
        }
    }
}
