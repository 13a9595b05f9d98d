import StepwiseExpressions
import StepwiseJSON
import Testing

/// SEMANTICS §3.7: every function, including every edge row.
struct FunctionTests {
    static let calls: [(String, String)] = [
        // abs
        ("abs(-3)", "3"), ("abs(2.5)", "2.5"), ("abs('-4')", "4"), ("abs(true)", "1"), ("abs('x')", "null"),
        ("abs(null)", "null"), ("abs(arr)", "null"),
        // len
        ("len('abc')", "3"), ("len('São')", "4"), ("len(sao)", "4"), ("len('😀')", "4"), ("len('')", "0"),
        ("len(arr)", "3"), ("len(empty)", "0"), ("len(obj)", "3"), ("len(eobj)", "0"), ("len(5)", "0"),
        ("len(null)", "0"), ("len(true)", "0"), ("len(missing)", "0"),
        // json
        ("json([1])", "\"[1]\""), ("json(1.5)", "\"1.5\""), ("json(2.0)", "\"2\""), ("json(1 + 1)", "\"2\""),
        ("json(o2)", "\"{\\\"a\\\":1,\\\"b\\\":2}\""), ("json(null)", "\"null\""), ("json('a\"b')", "\"\\\"a\\\\\\\"b\\\"\""),
        ("json([true, null, 'x'])", "\"[true,null,\\\"x\\\"]\""), ("json(eobj)", "\"{}\""),
        // keys / values
        ("keys(o2)", "[\"a\", \"b\"]"), ("keys(obj)", "[\"a\", \"b\", \"c\"]"), ("keys(arr)", "[]"), ("keys(null)", "[]"),
        ("keys(eobj)", "[]"), ("values(o2)", "[1, 2]"), ("values(arr)", "[]"), ("values('s')", "[]"),
        // contains
        ("contains(arr, 2)", "true"), ("contains(arr, 2.0)", "true"), ("contains(arr, '2')", "false"),
        ("contains('hello', 'ell')", "true"), ("contains('hello', 'xyz')", "false"), ("contains('hello', '')", "true"),
        ("contains(sao, 'ã')", "true"), ("contains('123', 2)", "false"), ("contains(obj, 'a')", "false"),
        ("contains(null, null)", "false"), ("contains([null], null)", "true"),
        // starts_with / ends_with
        ("starts_with('hello', 'he')", "true"), ("starts_with('hello', 'lo')", "false"),
        ("starts_with('hello', '')", "true"), ("starts_with(42, 4)", "false"), ("starts_with('42', 4)", "false"),
        ("starts_with(null, 'a')", "false"), ("ends_with('hello', 'lo')", "true"), ("ends_with('hello', 'he')", "false"),
        ("ends_with('x', 'xx')", "false"), ("ends_with(sao, 'o')", "true"), ("ends_with(1, 1)", "false"),
        // sum / avg / min / max
        ("sum([1, 2, 3])", "6"), ("sum([])", "0"), ("sum([1, 'a', '2', null, true])", "4"), ("sum('x')", "null"),
        ("sum(null)", "null"), ("sum([1.5, 2.5])", "4"), ("avg([1, 2, 3, 4])", "2.5"), ("avg([])", "null"),
        ("avg(['a', null])", "null"), ("avg([2, 'x', '4'])", "3"), ("avg(obj)", "null"), ("min([3, 1, 2])", "1"),
        ("max([3, 1, 2])", "3"), ("min(['5', 7])", "5"), ("max([])", "null"), ("min('abc')", "null"),
        ("max([null, 'x'])", "null"), ("max([-1, -5])", "-1"),
        // first / last
        ("first(arr)", "1"), ("last(arr)", "3"), ("first([])", "null"), ("last([])", "null"), ("first('abc')", "null"),
        ("last(obj)", "null"), ("first([[1], 2])", "[1]"),
        // slice
        ("slice(arr)", "[1, 2, 3]"), ("slice(arr, 1)", "[2, 3]"), ("slice(arr, 1, 2)", "[2]"), ("slice(arr, 0, 10)", "[1, 2, 3]"),
        ("slice(arr, -5, 2)", "[1, 2]"), ("slice(arr, 2, 1)", "[]"), ("slice(arr, 2, 2)", "[]"), ("slice(arr, 1.9, 2.9)", "[2]"),
        ("slice(arr, 5)", "[]"), ("slice(arr, '1')", "[2, 3]"), ("slice('abc', 1)", "null"), ("slice(null)", "null"),
        ("slice(arr, 0, -1)", "[]"),
        // sort
        ("sort([3, 1, 2])", "[1, 2, 3]"), ("sort([3, 1, 2], 'desc')", "[3, 2, 1]"), ("sort(['b', 'a', 'B'])", "[\"B\", \"a\", \"b\"]"),
        ("sort(['a', 2, null, true, [1], o1, 1.5])", "[null, true, 1.5, 2, \"a\", [1], {\"a\": 1, \"b\": 2}]"),
        ("sort([2, 1.0, 1])", "[1, 1, 2]"), ("sort([])", "[]"), ("sort('abc')", "null"), ("sort(null)", "null"),
        ("sort(['10', '9'])", "[\"10\", \"9\"]"),
        // unique
        ("unique([1, 1.0, 2, '1', 2])", "[1, 2, \"1\"]"), ("unique([])", "[]"), ("unique([[1], [1.0], o1, o2])", "[[1], {\"a\": 1, \"b\": 2}]"),
        ("unique([null, null, false])", "[null, false]"), ("unique('x')", "null"),
        // count
        ("count([1, 2, 1, 1.0], 1)", "3"), ("count(arr, 'x')", "0"), ("count('aaa', 'a')", "0"), ("count(null, 1)", "0"),
        ("count([[1], [1]], [1.0])", "2"),
        // change_pct
        ("change_pct(100, 150)", "50"), ("change_pct(200, 100)", "-50"), ("change_pct(0, 5)", "null"),
        ("change_pct('10', '15')", "50"), ("change_pct('x', 5)", "null"), ("change_pct(10, null)", "null"),
        // clamp
        ("clamp(5, 1, 10)", "5"), ("clamp(-5, 1, 10)", "1"), ("clamp(50, 1, 10)", "10"), ("clamp(5, 5, 5)", "5"),
        ("clamp('7', 1, 5)", "5"), ("clamp('x', 1, 10)", "\"x\""), ("clamp(null, 1, 10)", "null"),
        ("clamp(5, 'a', 10)", "5"), ("clamp(arr, 1, 2)", "[1, 2, 3]"),
        // random with equal or inverted bounds
        ("random(5, 5)", "5"), ("random(7, 3)", "7"), ("random(5, 6)", "5"), ("random(1.9, 2.9)", "1"),
        ("random(200)", "200"), ("random('a')", "null"),
    ]

    @Test("function results and edge behaviour", arguments: calls)
    func functions(_ text: String, _ expected: String) throws {
        #expect(try evaluate(text) == .value(json(expected)), "\(text)")
    }

    static let integerResults: [String] = [
        "len('abc')", "len(arr)", "count(arr, 1)", "random()", "random(3, 9)", "day_of_week('2024-01-01T00:00:00Z')",
    ]

    @Test("len, count, random and day_of_week give integers", arguments: integerResults)
    func integerResultFunctions(_ text: String) throws {
        let value = try #require(try evaluate(text).value)
        guard case .integer = value else {
            Issue.record("\(text) gave \(value), expected an integer")
            return
        }
    }

    static let doubleResults: [String] = ["abs(-3)", "sum([1, 2])", "min([3])", "change_pct(1, 2)", "clamp(5, 1, 10)"]

    @Test("numeric functions give doubles", arguments: doubleResults)
    func doubleResultFunctions(_ text: String) throws {
        let value = try #require(try evaluate(text).value)
        guard case .double = value else {
            Issue.record("\(text) gave \(value), expected a double")
            return
        }
    }

    @Test("clamp with lo > hi is a runtime error whose message starts with the function name")
    func clampError() throws {
        #expect(try evaluate("clamp(3, 5, 1)") == .error("clamp: lo 5 is greater than hi 1"))
        #expect(try evaluate("clamp('x', 5, 1)") == .error("clamp: lo 5 is greater than hi 1"))
        #expect(try evaluate("clamp(1, 2.5, '1')") == .error("clamp: lo 2.5 is greater than hi 1"))
    }

    @Test("random() draws from the injected generator in [min, max)")
    func randomRange() throws {
        for seed in 0..<200 as Range<UInt64> {
            let v = try #require(try evaluate("random()", seed: seed).value?.exactIntegerValue)
            #expect((0..<100).contains(v))
            let w = try #require(try evaluate("random(-3, 4)", seed: seed).value?.exactIntegerValue)
            #expect((-3..<4).contains(w))
            let x = try #require(try evaluate("random(10)", seed: seed).value?.exactIntegerValue)
            #expect((10..<100).contains(x))
        }
        // Deterministic for a seed.
        #expect(try evaluate("random(0, 1000000)", seed: 9) == (try evaluate("random(0, 1000000)", seed: 9)))
    }

    @Test("uuid() is a lowercase version-4 UUID from the injected generator")
    func uuidFormat() throws {
        let a = try #require(try evaluate("uuid()", seed: 1).value?.stringValue)
        let b = try #require(try evaluate("uuid()", seed: 1).value?.stringValue)
        let c = try #require(try evaluate("uuid()", seed: 2).value?.stringValue)
        #expect(a == b)
        #expect(a != c)
        let chars = Array(a)
        #expect(chars.count == 36)
        #expect(chars[8] == "-" && chars[13] == "-" && chars[18] == "-" && chars[23] == "-")
        #expect(chars[14] == "4")
        #expect("89ab".contains(chars[19]))
        #expect(a.allSatisfy { "0123456789abcdef-".contains($0) })
        #expect(try evaluate("uuid() == uuid()") == .value(false))
    }

    @Test("SplitMix64 sequence is the reference one")
    func splitMix() {
        let source = RandomSource(seed: 1_234_567)
        #expect(source.next() == 6_457_827_717_110_365_317)
        #expect(source.next() == 3_203_168_211_198_807_973)
        let zero = RandomSource(seed: 0)
        #expect(zero.next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test("array functions return null above 100,000 elements")
    func arrayLimit() throws {
        let big = JSONValue.array(Array(repeating: 1, count: 100_001))
        let ok = JSONValue.array(Array(repeating: 1, count: 100_000))
        for f in ["sum(a)", "avg(a)", "min(a)", "max(a)", "first(a)", "last(a)", "slice(a)", "sort(a)", "unique(a)", "count(a, 1)"] {
            #expect(try evaluate(f, data: ["a": big]) == .value(.null), "\(f)")
            #expect(try evaluate(f, data: ["a": ok]) != .value(.null), "\(f)")
        }
        #expect(try evaluate("len(a)", data: ["a": big]) == .value(.integer(100_001)))
    }

    @Test("json() is null above 4 MiB")
    func jsonLimit() throws {
        let s = String(repeating: "x", count: 4 * 1024 * 1024)
        #expect(try evaluate("json(a)", data: ["a": .string(s)]) == .value(.null))
        let ok = String(repeating: "x", count: 4 * 1024 * 1024 - 2)
        #expect(try evaluate("len(json(a))", data: ["a": .string(ok)]) == .value(.integer(4 * 1024 * 1024)))
    }

    @Test("sort is stable and desc reverses the ascending order")
    func sortStability() throws {
        #expect(try evaluate("sort([o1, [2], o2, [1]])") == .value(json("[[2], [1], {\"a\":1,\"b\":2}, {\"a\":1,\"b\":2}]")))
        let value = try #require(try evaluate("sort([true, false, 1], 'desc')").value)
        #expect(value == json("[1, false, true]"))
        #expect(try evaluate("sort([1, 2], 'up')") == .value(.null))
    }

    @Test("keys are sorted by UTF-8 bytes")
    func keysOrder() throws {
        let data: JSONValue = ["o": ["b": 1, "a": 2, "B": 3, "é": 4, "z": 5]]
        #expect(try evaluate("keys(o)", data: data) == .value(["B", "a", "b", "z", "é"]))
        #expect(try evaluate("values(o)", data: data) == .value([3, 2, 1, 5, 4]))
    }
}
