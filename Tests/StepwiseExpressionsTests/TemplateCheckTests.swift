import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §4.4: load-time checks of every complete `{{ }}`.
struct TemplateCheckTests {
    static let rejected: [(String, String)] = [
        ("{{ }}", "empty template"), ("{{}}", "empty template"), ("a {{   }} b", "empty template"),
        ("{{ bar.x }}", "unknown root 'bar'"), ("{{ foo }}", "unknown root 'foo'"), ("{{ user.name }}", "unknown root 'user'"),
        ("{{ context }}", "unknown root 'context'"), ("{{ context.foo.x }}", "unknown root 'context.foo.x'"),
        ("{{ context.bogus }}", "'context.' must be followed by data or config"),
        ("{{ json }}", "'json' is only a function"), ("{{ len.x }}", "'len' is only a function"),
        ("{{ json(foo.x) }}", "unknown root 'foo'"), ("{{ len('x') }}", "len() needs a path"), ("{{ json(data.x }}", "missing ')'"),
        ("{{ upper(data.x) }}", "template source must be a path"), ("{{ 'text' }}", "template source must be a path"),
        ("{{ 5 }}", "template source must be a path"), ("{{ data.x | foo }}", "bare word"),
        ("{{ data.x | foo() }}", "unknown filter 'foo'"), ("{{ data.x | json(data.y) }}", "unknown filter 'json'"),
        ("{{ data.x | upper(1) }}", "filter 'upper' takes no arguments"), ("{{ data.x | round }}", "bare word"),
        ("{{ data.x | round() }}", "round takes 1 argument"), ("{{ data.x | round(1.5) }}", "round: the number of decimals must be a non-negative integer, got 1.5"),
        ("{{ data.x | round(-1) }}", "a non-negative integer, got -1"), ("{{ data.x | round('2') }}", "a non-negative integer, got '2'"),
        ("{{ data.x | truncate(2.0) }}", "truncate: the length must be a non-negative integer, got 2.0"),
        ("{{ data.x | round(1e20) }}", "round: the number of decimals must be a non-negative integer, got 1e20"),
        ("{{ data.x | truncate('a') }}", "truncate: the length must be a non-negative integer"),
        ("{{ data.x | truncate(2, 3) }}", "truncate: the suffix must be a quoted string"),
        ("{{ data.x | truncate(1, 'a', 'b') }}", "truncate takes 1 or 2 arguments"),
        ("{{ data.x | hash('md5') }}", "hash: unsupported algorithm 'md5'"), ("{{ data.x | hash() }}", "hash takes 1 argument"),
        ("{{ data.x | hash(sha256) }}", "unsupported algorithm"), ("{{ data.x | replace('a') }}", "replace takes 2 arguments"),
        ("{{ data.x | replace('', 'b') }}", "replace: the search text must not be empty"),
        ("{{ data.x | replace(data.y, 'b') }}", "replace: the search text must be a quoted string"),
        ("{{ data.x | replace('a', bogus) }}", "replace: the replacement must be a quoted string or a path"),
        ("{{ data.x | default(data.y) }}", "default: the argument must be a literal"), ("{{ data.x | default() }}", "default takes 1 argument"),
        ("{{ data.x | join(1) }}", "join: the separator must be a quoted string"), ("{{ data.x | split() }}", "split takes 1 argument"),
        ("{{ data.x | 'abc }}", "unterminated string"), ("{{ data.x | }}", "empty segment"), ("{{ data.x | upper( }}", "missing ')'"),
        ("{{ data.x | join(',',) }}", "empty argument"), ("{{ data..x }}", "template source must be a path"),
    ]

    @Test("template load errors name the problem", arguments: rejected)
    func rejectedTemplates(_ text: String, _ message: String) {
        let error = templateError(text)
        if message == "bare word" {
            #expect(error == nil, "\(text)")
            #expect((try? Template.compile(text))?.warnings.first?.contains("bare word") == true)
            return
        }
        #expect(error?.message.contains(message) == true, "\(text): \(String(describing: error))")
    }

    static let accepted: [String] = [
        "{{ data.x }}", "{{ context.data.x }}", "{{ context.config.x }}", "{{ config.x }}", "{{ outputs.s.x }}",
        "{{ steps.s }}", "{{ outputs }}", "{{ input.a }}", "{{ instance_id }}", "{{ runtime.attempt }}", "{{ state }}",
        "{{ json(data.x) }}", "{{ len(outputs.a.b) }}", "{{ data.x | upper | lower | trim | abs }}",
        "{{ data.x | round(2) | truncate(5) | truncate(5, '…') }}", "{{ data.x | url_encode | base64 | base64_decode }}",
        "{{ data.x | truncate(99999999999999999999) | round(99999999999999999999) }}",
        "{{ data.x | replace('a', 'b') | replace(\"c\", data.y) | default('z') | default(1) | default(null) }}",
        "{{ data.x | join(', ') | split(',') | hash('sha256') }}", "{{ data.x|upper }}", "a {{ data.x }} b {{ data.y }}",
        "{{ data.x | data.y | 'lit' | 3 | true }}",
    ]

    @Test("valid templates compile", arguments: accepted)
    func acceptedTemplates(_ text: String) {
        #expect(templateError(text) == nil, "\(text): \(String(describing: templateError(text)))")
    }

    @Test("TemplateError describes itself by its message")
    func description() {
        #expect(TemplateError(message: "unknown filter 'foo'").description == "unknown filter 'foo'")
    }

    @Test("every complete {{ }} is checked, not only the first")
    func allTemplatesChecked() {
        #expect(templateError("{{ data.a }} and {{ nope.b }}")?.message.contains("unknown root 'nope'") == true)
    }
}
