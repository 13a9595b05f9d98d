import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §4.1–§4.2: template forms, sources, fallbacks and literals.
struct TemplateTests {
    static let outputs: JSONObject = ["step_1": ["result": "ok", "count": 42], "step-2": ["v": 1]]
    static let runtime = RuntimeInfo(attempt: 1, instanceId: "iid-1", sequenceName: "seq")

    static let renders: [(String, String)] = [
        // Whole-string templates keep the JSON type.
        ("{{ data.n }}", "5"), ("{{data.f}}", "2.5"), ("{{ data.t }}", "true"), ("{{ data.arr }}", "[1, 2, 3]"),
        ("{{ data.obj }}", "{\"a\": 1, \"b\": [10, 20], \"c\": null}"), ("{{ data.nul }}", "null"),
        ("{{ data.missing }}", "null"), ("{{ context.data.s }}", "\"abc\""), ("{{ context.config.region }}", "\"eu\""),
        ("{{ config.region }}", "\"eu\""), ("{{ outputs.step_1.count }}", "42"), ("{{ steps.step_1.result }}", "\"ok\""),
        ("{{ outputs.step-2.v }}", "1"), ("{{ input.x }}", "7"), ("{{ data.arr.1 }}", "2"), ("{{ data.items.0.id }}", "\"a\""),
        ("{{ instance_id }}", "\"iid-1\""), ("{{ runtime.attempt }}", "1"), ("{{ runtime.sequence_name }}", "\"seq\""),
        ("{{ state }}", "null"), ("{{ state.anything }}", "null"),
        // json() and len() sources.
        ("{{ json(data.o2) }}", "\"{\\\"a\\\":1,\\\"b\\\":2}\""), ("{{ json(data.missing) }}", "\"null\""),
        ("{{ len(data.arr) }}", "3"), ("{{ len(data.sao) }}", "4"), ("{{ len(data.missing) }}", "0"),
        // Inline templates stringify: strings raw, others compact JSON, integral numbers without fraction.
        ("Hello {{ data.s }}!", "\"Hello abc!\""), ("n={{ data.n }}", "\"n=5\""), ("{{ data.n }} items", "\"5 items\""),
        ("x{{ data.nul }}y", "\"xnully\""), ("x{{ data.missing }}y", "\"xnully\""), ("{{ data.arr }}!", "\"[1,2,3]!\""),
        ("{{ data.o2 }} ", "\"{\\\"a\\\":1,\\\"b\\\":2} \""), ("{{ data.t }}/{{ data.fl }}", "\"true/false\""),
        ("{{ data.n }}{{ data.n }}", "\"55\""), ("a {{ data.f }} b", "\"a 2.5 b\""),
        (" {{ data.n }}", "\" 5\""), ("v{{ outputs.step_1.count }}", "\"v42\""),
        // Unclosed {{ is literal text.
        ("before {{ unclosed", "\"before {{ unclosed\""), ("{{ data.s }} and {{ more", "\"abc and {{ more\""),
        ("no template", "\"no template\""), ("{ { data.s } }", "\"{ { data.s } }\""),
        // Fallbacks and literals.
        ("{{ data.missing | data.s }}", "\"abc\""), ("{{ data.missing | data.nul | 'x' }}", "\"x\""),
        ("{{ data.s | 'x' }}", "\"abc\""), ("{{ data.missing | 7 }}", "7"), ("{{ data.missing | -1.5 }}", "-1.5"),
        ("{{ data.missing | true }}", "true"), ("{{ data.missing | null | 'x' }}", "null"),
        ("{{ data.missing | \"dq\" }}", "\"dq\""), ("{{ data.missing | fallback_value }}", "\"fallback_value\""),
        ("{{ data.missing | default }}", "\"default\""), ("Hello {{ data.missing|stranger }}!", "\"Hello stranger!\""),
        ("{{ data.missing | 'a|b' }}", "\"a|b\""), ("{{ data.e | 'x' }}", "\"\""), ("{{ data.z | 9 }}", "0"),
        // Quoted arguments may hold }} and |.
        ("{{ data.missing | default('}}') }}", "\"}}\""), ("[{{ data.arr | join('}}') }}]", "\"[1}}2}}3]\""),
        ("{{ data.arr | join('|') }}", "\"1|2|3\""),
        // Filters after a fallback apply; a filter reached first leaves the base null.
        ("{{ data.missing | 'abc' | upper }}", "\"ABC\""), ("{{ data.missing | upper | 'abc' }}", "\"\""),
        ("{{ data.missing | default('d') | upper }}", "\"D\""), ("{{ data.s | upper | 'ignored' | lower }}", "\"abc\""),
        ("{{ data.missing | data.s | upper }}", "\"ABC\""),
    ]

    @Test("template forms and evaluation", arguments: renders)
    func renderTemplate(_ text: String, _ expected: String) throws {
        let value = try render(text, config: ["region": "eu"], outputs: Self.outputs, runtime: Self.runtime)
        #expect(value == json(expected), "\(text) → \(value)")
    }

    @Test("inline numbers are written without a fraction when integral")
    func inlineNumbers() throws {
        #expect(try render("{{ data.v }}!", data: ["v": 3.0]) == "3!")
        #expect(try render("{{ data.v }}!", data: ["v": -0.5]) == "-0.5!")
        #expect(try render("{{ data.v }}", data: ["v": 3.0]) == .double(3))
    }

    @Test("whole-string detection")
    func wholeForm() throws {
        #expect(try Template.compile("{{ data.n }}").isWhole)
        #expect(try Template.compile("{{data.n}}").isWhole)
        #expect(try Template.compile("{{ data.missing | default('}}') }}").isWhole)
        #expect(try !Template.compile(" {{ data.n }}").isWhole)
        #expect(try !Template.compile("{{ data.n }}{{ data.n }}").isWhole)
        #expect(try !Template.compile("{{ data.n }} ").isWhole)
    }

    @Test("warnings: bare words and unclosed {{")
    func warnings() throws {
        let bare = try Template.compile("{{ data.x | anonymous }}")
        #expect(bare.warnings.count == 1)
        #expect(bare.warnings[0].contains("bare word 'anonymous'"))
        let unclosed = try Template.compile("a {{ b")
        #expect(unclosed.warnings.count == 1)
        #expect(unclosed.warnings[0].contains("unclosed"))
        #expect(try Template.compile("{{ data.x | 'quoted' | data.y | 5 }}").warnings.isEmpty)
        // §4.1: a `}}` inside a quoted argument does not close the template, which is then
        // never closed: literal text with a warning, not a template error.
        let quotedOnly = try Template.compile("{{ data.a | default('}}') ")
        #expect(quotedOnly.warnings.count == 1 && quotedOnly.warnings[0].contains("unclosed"))
        // An unbalanced quote hides nothing: the first `}}` closes.
        let unbalanced = #expect(throws: TemplateError.self) { try Template.compile("{{ data.it's }} tail") }
        #expect(unbalanced?.message.contains("got 'data.it's'") == true, "\(String(describing: unbalanced))")
    }

    @Test("a { followed by a combining mark still opens a template")
    func combiningMarkAfterBraces() {
        #expect(Template.containsOpening("{{\u{301} data.x }}"))
        #expect(Template.containsOpening("a{{"))
        #expect(!Template.containsOpening("{ {"))
    }

    @Test("source keeps the text as written")
    func source() throws {
        #expect(try Template.compile("a {{ data.x }}").source == "a {{ data.x }}")
    }
}
