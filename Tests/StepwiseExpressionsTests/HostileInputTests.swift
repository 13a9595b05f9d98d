import StepwiseExpressions
import StepwiseJSON
import Testing

/// Regressions for hostile inputs (`Fixtures/hostile/`): work is charged by the bytes it
/// produces or touches, searches are linear, and rendered text is capped.
struct HostileInputTests {
    static let costError = EvaluationResult.error("evaluation cost limit exceeded")

    /// `data.s + data.s + …` with `terms` terms.
    static func concatenation(_ terms: Int) -> String {
        Array(repeating: "s", count: terms).joined(separator: " + ")
    }

    @Test("string + is charged per 64 bytes it produces")
    func concatenationCost() throws {
        // 64,000 bytes = 1,000 units a term: the k-th `+` produces k + 1 terms, so 44 terms cost
        // 1,000 × (2 + … + 44) = 989,000 units (plus one per node), and 45 terms 1,034,000.
        let data: JSONValue = ["s": .string(String(repeating: "a", count: 64_000))]
        let fits = try evaluate(Self.concatenation(44), data: data)
        #expect(fits.value?.stringValue?.utf8.count == 44 * 64_000)
        #expect(try evaluate(Self.concatenation(45), data: data) == Self.costError)
    }

    @Test("a long concatenation chain of a large string runs out of budget")
    func concatenationBomb() throws {
        let data: JSONValue = ["s": .string(String(repeating: "a", count: 102_400))]
        #expect(try evaluate(Self.concatenation(2_000), data: data) == Self.costError)
        // Short strings still concatenate in long chains.
        #expect(try evaluate(Self.concatenation(1_000), data: ["s": "ab"]).value?.stringValue?.utf8.count == 2_000)
    }

    @Test("json() is charged per 64 bytes of its text before writing it")
    func jsonCost() throws {
        // Text of exactly 4 MiB (a string of 4 MiB − 2 bytes plus its quotes): 65,536 units each.
        let data: JSONValue = ["s": .string(String(repeating: "a", count: 4 * 1_048_576 - 2))]
        let fifteen = Array(repeating: "len(json(s))", count: 15).joined(separator: " + ")
        #expect(try evaluate(fifteen, data: data) == .value(.double(15 * 4 * 1_048_576)))
        let sixteen = Array(repeating: "len(json(s))", count: 16).joined(separator: " + ")
        #expect(try evaluate(sixteen, data: data) == Self.costError)
    }

    @Test("json() of many references to one large value fails on cost without writing it")
    func jsonOfSharedElements() throws {
        let data: JSONValue = ["s": .string(String(repeating: "a", count: 1_048_576))]
        let list = "[" + Array(repeating: "data", count: 2_000).joined(separator: ",") + "]"
        #expect(try evaluate("len(json(\(list)))", data: data) == Self.costError)
        // Over 4 MiB but affordable: null, as before.
        let five = "[" + Array(repeating: "data", count: 5).joined(separator: ",") + "]"
        #expect(try evaluate("json(\(five))", data: data) == .value(.null))
        #expect(try evaluate("len(json(\(five)))", data: data) == .value(0))
        // Exactly 4 MiB is still text.
        let exact: JSONValue = ["s": .string(String(repeating: "a", count: 4 * 1_048_576 - 2))]
        #expect(try evaluate("len(json(s))", data: exact) == .value(.integer(4 * 1_048_576)))
        #expect(try evaluate("json(s)", data: ["s": "a\"b"]) == .value(#""a\"b""#))
    }

    static let searches: [(haystack: String, needle: String, found: Bool)] = [
        ("aaab", "aab", true),
        ("ababab", "abab", true),
        ("abababc", "ababc", true),
        ("abababd", "ababc", false),
        ("aabaabaaab", "aabaaab", true),
        ("abc", "abcd", false),
        ("abc", "", true),
        ("", "", true),
        ("", "a", false),
        ("São Paulo", "o P", true),
        ("São", "a\u{303}", false),
        ("xxxxxxxxxy", "xxy", true),
    ]

    @Test("contains() finds substrings, overlapping prefixes included", arguments: 0..<searches.count)
    func substringSearch(_ i: Int) throws {
        let c = Self.searches[i]
        #expect(try evaluate("contains(h, n)", data: ["h": .string(c.haystack), "n": .string(c.needle)]) == .value(.bool(c.found)))
    }

    @Test("a long almost-matching needle over 4 MiB is searched linearly and charged for both")
    func adversarialSearch() throws {
        let data: JSONValue = [
            "h": .string(String(repeating: "a", count: 4 * 1_048_576)),
            "n": .string(String(repeating: "a", count: 7_999) + "b"),
            "m": .string(String(repeating: "a", count: 7_999) + "a"),
        ]
        #expect(try evaluate("contains(h, n)", data: data) == .value(false))
        #expect(try evaluate("contains(h, m)", data: data) == .value(true))
        // (4 MiB + 8,000 bytes) / 64 = 65,661 units each: 15 fit, 16 do not.
        let fifteen = Array(repeating: "contains(h, n)", count: 15).joined(separator: " || ")
        #expect(try evaluate(fifteen, data: data) == .value(false))
        let sixteen = Array(repeating: "contains(h, n)", count: 16).joined(separator: " || ")
        #expect(try evaluate(sixteen, data: data) == Self.costError)
    }

    @Test("replace and split find overlapping-prefix separators")
    func replaceAndSplit() throws {
        let data: JSONValue = ["s": "aaaaa", "t": "abaabab", "u": "xxxxxxxxxy"]
        #expect(try render("{{ data.s | replace('aa', 'x') }}", data: data) == "xxa")
        #expect(try render("{{ data.t | replace('aab', '-') }}", data: data) == "ab-ab")
        #expect(try render("{{ data.u | replace('xxy', 'Z') }}", data: data) == "xxxxxxxZ")
        #expect(try render("{{ data.t | split('ab') }}", data: data) == ["", "a", "", ""])
    }

    @Test("replace with a long almost-matching needle over 4 MiB leaves the text as it is")
    func adversarialReplace() throws {
        let data: JSONValue = ["s": .string(String(repeating: "a", count: 4 * 1_048_576))]
        let template = "{{ data.s | replace('" + String(repeating: "a", count: 100_000) + "b', 'x') }}"
        #expect(try render(template, data: data).stringValue?.utf8.count == 4 * 1_048_576)
    }

    static let tooLarge = TemplateError(message: "template: result exceeds 4 MiB")

    @Test("inline templates are capped at 4 MiB, exactly 4 MiB accepted")
    func inlineCap() throws {
        let data: JSONValue = [
            "s": .string(String(repeating: "a", count: 1_048_576)),
            "list": .array(Array(repeating: .string(String(repeating: "b", count: 1_048_576)), count: 5)),
        ]
        let four = String(repeating: "{{ data.s }}", count: 4)
        #expect(try render(four, data: data).stringValue?.utf8.count == 4 * 1_048_576)
        #expect(throws: Self.tooLarge) { try render(four + "!", data: data) }
        #expect(throws: Self.tooLarge) { try render(String(repeating: "{{ data.s }}", count: 2_000), data: data) }
        // A non-string value whose JSON would not fit is refused before it is written.
        #expect(throws: Self.tooLarge) { try render("list: {{ data.list }}", data: data) }
        // The whole-string form keeps the value as it is: no text is built.
        #expect(try render("{{ data.list }}", data: data).arrayValue?.count == 5)
    }
}
