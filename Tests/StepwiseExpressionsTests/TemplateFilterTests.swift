import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §4.3: every filter.
struct TemplateFilterTests {
    static let data = json(
        """
        {"s": "Hello World", "pad": "  hi \\t\\n", "n": -3, "f": -2.345, "half": 2.5, "neg_half": -2.5,
         "arr": ["a", 1, true, null, {"k": 2}], "nums": [1, 2], "csv": "a,b,,c", "sao": "São Paulo/ñ?x=1&y",
         "b64": "SGVsbG8=", "bad64": "SGVsbG8", "latin": "/w==", "e": "", "nul": null, "t": true, "word": "x",
         "long": "abcdefghij", "emoji": "😀😀😀", "rep": "a-b-c", "sep": "+", "safe": "A-Z_a.z~0"}
        """)

    static let filters: [(String, String)] = [
        ("{{ data.s | upper }}", "\"HELLO WORLD\""), ("{{ data.s | lower }}", "\"hello world\""),
        ("{{ data.sao | upper }}", "\"SÃO PAULO/Ñ?X=1&Y\""), ("{{ data.n | upper }}", "\"\""), ("{{ data.nul | lower }}", "\"\""),
        ("{{ data.pad | trim }}", "\"hi\""), ("{{ data.t | trim }}", "\"\""), ("{{ data.s | upper() }}", "\"HELLO WORLD\""),
        ("{{ data.n | abs }}", "3"), ("{{ data.f | abs }}", "2.345"), ("{{ data.s | abs }}", "0"), ("{{ data.nul | abs }}", "0"),
        ("{{ data.f | round(2) }}", "-2.35"), ("{{ data.f | round(0) }}", "-2"), ("{{ data.half | round(0) }}", "3"),
        ("{{ data.neg_half | round(0) }}", "-3"), ("{{ data.n | round(2) }}", "-3"), ("{{ data.s | round(1) }}", "0"),
        ("{{ data.f | round(1) }}", "-2.3"),
        ("{{ data.sao | url_encode }}", "\"S%C3%A3o%20Paulo%2F%C3%B1%3Fx%3D1%26y\""), ("{{ data.n | url_encode }}", "\"\""),
        ("{{ data.safe | url_encode }}", "\"A-Z_a.z~0\""),
        ("{{ data.word | base64 }}", "\"eA==\""), ("{{ data.s | base64 }}", "\"SGVsbG8gV29ybGQ=\""), ("{{ data.n | base64 }}", "\"\""),
        ("{{ data.b64 | base64_decode }}", "\"Hello\""), ("{{ data.latin | base64_decode }}", "\"\\ufffd\""),
        ("{{ data.t | base64_decode }}", "\"\""), ("{{ data.s | base64 | base64_decode }}", "\"Hello World\""),
        ("{{ data.rep | replace('-', '+') }}", "\"a+b+c\""), ("{{ data.rep | replace('-', data.sep) }}", "\"a+b+c\""),
        ("{{ data.rep | replace('-', data.missing) }}", "\"abc\""), ("{{ data.nums | replace(',', ';') }}", "\"[1;2]\""),
        ("{{ data.n | replace('3', '4') }}", "\"-4\""), ("{{ data.rep | replace('x', 'y') }}", "\"a-b-c\""),
        ("{{ data.nul | default('d') }}", "\"d\""), ("{{ data.e | default('d') }}", "\"d\""), ("{{ data.s | default('d') }}", "\"Hello World\""),
        ("{{ data.missing | default(5) }}", "5"), ("{{ data.missing | default(null) }}", "null"), ("{{ data.missing | default(true) }}", "true"),
        ("{{ data.missing | default(\"dq\") }}", "\"dq\""),
        ("{{ data.long | truncate(3) }}", "\"abc\""), ("{{ data.long | truncate(3, '...') }}", "\"abc...\""),
        ("{{ data.long | truncate(10, '...') }}", "\"abcdefghij\""), ("{{ data.emoji | truncate(2, '…') }}", "\"😀😀…\""),
        ("{{ data.n | truncate(2) }}", "\"\""), ("{{ data.long | truncate(0) }}", "\"\""),
        // Arguments past 2^31 are integers too: the value stays whole.
        ("{{ data.long | truncate(3000000000) }}", "\"abcdefghij\""), ("{{ data.f | round(3000000000) }}", "-2.345"),
        ("{{ data.arr | join(', ') }}", "\"a, 1, true, null, {\\\"k\\\":2}\""), ("{{ data.nums | join('') }}", "\"12\""),
        ("{{ data.s | join(',') }}", "\"\""), ("{{ data.missing | join(',') }}", "\"\""),
        ("{{ data.csv | split(',') }}", "[\"a\", \"b\", \"\", \"c\"]"), ("{{ data.s | split('xyz') }}", "[\"Hello World\"]"),
        ("{{ data.n | split(',') }}", "[\"\"]"), ("{{ data.word | split('') }}", "[\"x\"]"),
        ("{{ data.csv | split(',') | join('+') }}", "\"a+b++c\""),
        ("{{ data.word | hash('sha256') }}", "\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\""),
        ("{{ data.e | hash('sha256') }}", "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\""),
        ("{{ data.word | hash(\"sha256\") }}", "\"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881\""),
    ]

    @Test("filters transform values as §4.3 says", arguments: filters)
    func filter(_ text: String, _ expected: String) throws {
        let value = try render(text, data: Self.data)
        #expect(value == json(expected), "\(text) → \(value)")
    }

    @Test("base64_decode of invalid input fails at render time")
    func invalidBase64() throws {
        let template = try Template.compile("{{ data.bad64 | base64_decode }}")
        #expect(throws: TemplateError(message: "base64_decode: invalid base64 input")) {
            try template.render(EvaluationScope(data: Self.data))
        }
    }

    @Test("filter results are capped at 4 MiB")
    func resultCap() throws {
        // 3.5 MiB of "ab".
        let big = String(repeating: "ab", count: 1_835_008)
        let data: JSONValue = ["big": .string(big), "list": .array([.string(big), .string(big)])]
        let scope = EvaluationScope(data: data)
        #expect(try Template.compile("{{ data.big | upper }}").render(scope).stringValue?.utf8.count == 3_670_016)
        for text in ["{{ data.big | replace('a', 'xyz') }}", "{{ data.list | join('') }}", "{{ data.big | base64 }}"] {
            let template = try Template.compile(text)
            var failure: TemplateError?
            do { _ = try template.render(scope) } catch { failure = error }
            #expect(failure?.message.contains("result exceeds 4 MiB") == true, "\(text)")
        }
    }
}
