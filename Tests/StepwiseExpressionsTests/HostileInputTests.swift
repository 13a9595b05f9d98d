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
        // Text of exactly 4 MiB (a string of 4 MiB − 2 bytes plus its quotes): one value and
        // 65,536 units of bytes each.
        let data: JSONValue = ["s": .string(String(repeating: "a", count: 4 * 1_048_576 - 2))]
        let fifteen = Array(repeating: "len(json(s))", count: 15).joined(separator: " + ")
        #expect(try evaluate(fifteen, data: data) == .value(.double(15 * 4 * 1_048_576)))
        let sixteen = Array(repeating: "len(json(s))", count: 16).joined(separator: " + ")
        #expect(try evaluate(sixteen, data: data) == Self.costError)
    }

    @Test("json() is charged per value it writes: many small elements cost as much as their count")
    func jsonValueCost() throws {
        // 100,000 one-digit integers: 100,001 values and 200,001 bytes (3,126 units) a call.
        let data: JSONValue = ["a": .array(Array(repeating: 1, count: 100_000))]
        let nine = Array(repeating: "len(json(a))", count: 9).joined(separator: " + ")
        #expect(try evaluate(nine, data: data) == .value(.double(9 * 200_001)))
        let ten = Array(repeating: "len(json(a))", count: 10).joined(separator: " + ")
        #expect(try evaluate(ten, data: data) == Self.costError)
        // A list literal sharing a large list: the value count stops it before any text.
        let shared = "[" + Array(repeating: "a", count: 20).joined(separator: ",") + "]"
        #expect(try evaluate("json(\(shared))", data: data) == Self.costError)
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
        ("abababababababababc", "abababababc", true),
        ("abababababababababd", "abababababc", false),
        ("aaaaaaaaaaaaaaaaaaaaaaab", "aaaaaaaaaaab", true),
    ]

    @Test("contains() finds substrings, overlapping prefixes included", arguments: 0..<searches.count)
    func substringSearch(_ i: Int) throws {
        let c = Self.searches[i]
        #expect(try evaluate("contains(h, n)", data: ["h": .string(c.haystack), "n": .string(c.needle)]) == .value(.bool(c.found)))
    }

    /// Whether `n` occurs in `h`, the obvious way, for cross-checking.
    static func referenceContains(_ h: [UInt8], _ n: [UInt8]) -> Bool {
        if n.isEmpty { return true }
        guard h.count >= n.count else { return false }
        return (0...(h.count - n.count)).contains { Array(h[$0..<($0 + n.count)]) == n }
    }

    @Test("contains() agrees with a direct search on random two-letter strings, short and long needles")
    func randomSearches() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<400 {
            let h = (0..<next(120)).map { _ in UInt8(ascii: next(3) == 0 ? "b" : "a") }
            // Half the needles are taken from the haystack, so that matches are common.
            var n = (0..<next(24)).map { _ in UInt8(ascii: next(3) == 0 ? "b" : "a") }
            if next(2) == 0, !h.isEmpty {
                let from = next(h.count)
                n = Array(h[from..<min(h.count, from + next(24))])
            }
            let data: JSONValue = ["h": .string(String(decoding: h, as: UTF8.self)), "n": .string(String(decoding: n, as: UTF8.self))]
            #expect(try evaluate("contains(h, n)", data: data) == .value(.bool(Self.referenceContains(h, n))), "\(h.count) \(n.count)")
        }
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

    @Test("==, != and in are charged per element they compare, so big arrays cannot stall the engine")
    func containerComparisonsAreCharged() throws {
        let big = JSONValue.array((0..<300_000).map { .integer(Int64($0)) })
        let data: JSONValue = ["a": big, "b": big, "o": ["k": big], "p": ["k": big]]
        // 300,000 units each: three fit in the budget, four do not.
        #expect(try evaluate("a == b && a == b && a == b", data: data) == .value(true))
        #expect(try evaluate("a == b && a == b && a == b && a != b", data: data) == Self.costError)
        // Members nested in objects are counted too; `in` counts the elements it tries.
        #expect(try evaluate("o == p && o == p && o == p && o == p", data: data) == Self.costError)
        #expect(try evaluate("299999 in a && 299999 in a && 299999 in a", data: data) == .value(true))
        #expect(try evaluate("299999 in a && 299999 in a && 299999 in a && 299999 in a", data: data) == Self.costError)
        // Different sizes are told apart without a charge.
        #expect(try evaluate("a == [1, 2]", data: data) == .value(false))
    }

    @Test("replace and split find overlapping-prefix separators")
    func replaceAndSplit() throws {
        let data: JSONValue = ["s": "aaaaa", "t": "abaabab", "u": "xxxxxxxxxy"]
        #expect(try render("{{ data.s | replace('aa', 'x') }}", data: data) == "xxa")
        #expect(try render("{{ data.t | replace('aab', '-') }}", data: data) == "ab-ab")
        #expect(try render("{{ data.u | replace('xxy', 'Z') }}", data: data) == "xxxxxxxZ")
        #expect(try render("{{ data.t | split('ab') }}", data: data) == ["", "a", "", ""])
        // Separators past the direct-comparison length use the table.
        let long: JSONValue = ["s": "xabcabcabcabdabcabcabcabcabd!abcabcabd"]
        #expect(try render("{{ data.s | split('abcabcabd') }}", data: long) == ["xabc", "abcabc", "!", ""])
        #expect(try render("{{ data.s | replace('abcabcabd', '-') }}", data: long) == "xabc-abcabc-!-")
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
