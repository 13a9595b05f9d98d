import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §3.8: every compile error, with its exact 0-based Unicode-scalar position.
struct CompileErrorTests {
    static let errors: [(String, Int, String)] = [
        ("a = 1", 2, "unexpected character '='; use == to compare"),
        ("a # b", 2, "unexpected character '#'"),
        ("a & b", 2, "unexpected character '&'"),
        ("a | b", 2, "unexpected character '|'"),
        ("a . b", 2, "unexpected character '.'"),
        ("1.", 1, "unexpected character '.'"),
        ("é == 1", 0, "unexpected character 'é'"),
        ("'São' == x @", 11, "unexpected character '@'"),
        ("'abc", 0, "unterminated string"),
        ("x == \"abc", 5, "unterminated string"),
        ("'a\\", 0, "unterminated string"),
        ("'\\x'", 1, "invalid escape"),
        ("'ok' + '\\q'", 8, "invalid escape"),
        ("'\\u12'", 1, "invalid escape"),
        ("'\\uD83D'", 1, "invalid escape"),
        ("'\\uDE00'", 1, "invalid escape"),
        ("'\\uD83Dx'", 1, "invalid escape"),
        ("1e999", 0, "number out of range"),
        ("x > 2e400", 4, "number out of range"),
        ("a..b", 2, "empty path segment"),
        ("data.", 5, "empty path segment"),
        ("f(x).", 5, "empty path segment"),
        ("1 2", 2, "unexpected token '2'"),
        ("a or b", 2, "unexpected token 'or'"),
        ("a == 1 )", 7, "unexpected token ')'"),
        ("in", 0, "unexpected token 'in'"),
        ("* 2", 0, "unexpected token '*'"),
        ("5 ==", 4, "unexpected end of expression"),
        ("!", 1, "unexpected end of expression"),
        ("1 +", 3, "unexpected end of expression"),
        ("a &&", 4, "unexpected end of expression"),
        ("(1 + 2", 6, "missing ')'"),
        ("abs(1", 5, "missing ')'"),
        ("abs(1 2)", 6, "missing ')'"),
        ("[1, 2", 5, "missing ']'"),
        ("arr[0", 5, "missing ']'"),
        ("", 0, "empty expression"),
        ("   ", 0, "empty expression"),
        ("{{ }}", 2, "empty expression"),
        ("()", 0, "empty ()"),
        ("1 + ()", 4, "empty ()"),
        ("a == {{ b }}", 5, "'{{' inside an expression"),
        ("{{ a }} && {{ b }}", 0, "'{{' inside an expression"),
        ("x {{", 2, "'{{' inside an expression"),
        ("foo(1)", 0, "unknown function 'foo'"),
        ("1 + bar()", 4, "unknown function 'bar'"),
        ("a.b(1)", 0, "unknown function 'a.b'"),
        ("clamp(1, 2)", 0, "wrong arity"),
        ("x && min(3, 1)", 5, "wrong arity"),
        ("now(1)", 0, "wrong arity"),
        ("has()", 0, "wrong arity"),
        ("random(1, 2, 3)", 0, "wrong arity"),
        ("slice()", 0, "wrong arity"),
        ("has(1)", 4, "has without a path"),
        ("has('a')", 4, "has without a path"),
        ("has(a[0])", 4, "has without a path"),
        ("has(abs(x))", 4, "has without a path"),
        ("1 < 2 < 3", 6, "chained comparison"),
        ("a == b == c", 7, "chained comparison"),
        ("a == b in c", 7, "chained comparison"),
        ("a ? b", 5, "ternary missing ':'"),
        ("a ? b c", 6, "ternary missing ':'"),
        ("a b", 2, "unexpected token 'b'"),
        ("1 ? 2 : ", 8, "unexpected end of expression"),
        ("{{ a == }}", 8, "unexpected end of expression"),
        ("  {{ foo(1) }}  ", 5, "unknown function 'foo'"),
        ("\t{{ a = b }}", 6, "unexpected character '='"),
        ("'日本' == y ==", 10, "chained comparison"),
    ]

    @Test("compile errors carry the spec's message and exact position", arguments: errors)
    func compileErrors(_ text: String, _ position: Int, _ message: String) {
        let error = compileError(text)
        #expect(error?.position == position, "\(text)")
        #expect(error?.message.contains(message) == true, "\(text): \(String(describing: error?.message))")
        #expect(error?.description.hasPrefix("expression error at position \(position): ") == true)
    }

    @Test("the description format is normative")
    func descriptionFormat() {
        let error = ExpressionError(position: 4, message: "unexpected end of expression")
        #expect(error.description == "expression error at position 4: unexpected end of expression")
    }

    static let accepted: [String] = [
        "a", "a.b.0", "a.0b", "x == 1", "{{ x == 1 }}", "  {{x}}  ", "[1, 2,]", "abs(1,)", "[]", "now()",
        "first-name", "a in [1]", "'\\'\\\"\\\\\\n\\t\\r\\u00e9'", "'\\uD83D\\uDE00'", "\"it's\"", "'say \"hi\"'",
        "abs(x).y", "[1][0]", "(a)", "1e5", "1E-5", "0.5", "007", "x != null", "!a", "-a", "!-!-a", "a ? b : c",
        "\n a \r\n == \t 1 ", "random()", "random(1)", "random(1, 2)", "slice(a)", "slice(a, 1)", "slice(a, 1, 2)",
        "sort(a)", "sort(a, 'desc')", "format_date(x)", "format_date(x, '%Y')",
    ]

    @Test("valid syntax compiles", arguments: accepted)
    func acceptedSyntax(_ text: String) {
        #expect(compileError(text) == nil, "\(text): \(String(describing: compileError(text)))")
    }

    @Test("escapes produce the intended characters")
    func escapes() throws {
        #expect(try evaluate("'\\'\\\"\\\\\\n\\t\\r\\u00e9'") == .value(.string("'\"\\\n\t\ré")))
        #expect(try evaluate("'\\uD83D\\uDE00'") == .value(.string("😀")))
        #expect(try evaluate("'a\\u0000b'") == .value(.string("a\u{0}b")))
    }

    @Test("first-name is first minus name, as in orch8")
    func minusIsAlwaysAnOperator() throws {
        #expect(try evaluate("first-name", data: ["first": 5, "name": 2]) == .value(3))
    }

    @Test("warnings name now(), uuid() and random() in a condition, once each")
    func nondeterminismWarnings() throws {
        #expect(try Expression.compile("x == 1").warnings.isEmpty)
        let w = try Expression.compile("now() > x && uuid() != now() && random(1) > 0").warnings
        #expect(w.count == 3)
        #expect(w[0].contains("now()"))
        #expect(w[1].contains("uuid()"))
        #expect(w[2].contains("random()"))
    }

    @Test("source keeps the text as written")
    func sourceIsKept() throws {
        #expect(try Expression.compile("{{ a }}").source == "{{ a }}")
    }
}
