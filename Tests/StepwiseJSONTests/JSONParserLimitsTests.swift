import StepwiseJSON
import Testing

/// Nesting limits (SEMANTICS §1.1: deeper than 256 is `too_deep_json`) and large inputs.
struct JSONParserLimitsTests {
    static func nestedArrays(_ depth: Int, innermost: String = "") -> String {
        String(repeating: "[", count: depth) + innermost + String(repeating: "]", count: depth)
    }

    static func nestedObjects(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }

    @Test func acceptsDepth256() throws {
        var value = try JSONParser.parse(Self.nestedArrays(256))
        var depth = 0
        while case .array(let a) = value {
            depth += 1
            value = a.first ?? .null
        }
        #expect(depth == 256)
        _ = try JSONParser.parse(Self.nestedArrays(256, innermost: #"1,"x",2"#))
        _ = try JSONParser.parse(Self.nestedObjects(256))
        _ = try JSONParser.parse(String(repeating: #"[{"a":"#, count: 128) + "1" + String(repeating: "}]", count: 128))
    }

    static let tooDeep: [Named<(String, Int)>] = [
        Named("257 empty arrays", (nestedArrays(257), 256)),
        Named("257 arrays around a scalar", (nestedArrays(257, innermost: "1"), 256)),
        Named("257 objects", (nestedObjects(257), 256 * 5)),
        Named("mixed, 257 deep", (String(repeating: #"[{"a":"#, count: 128) + "[1]" + String(repeating: "}]", count: 128), 128 * 6)),
        Named("unclosed 257", (String(repeating: "[", count: 257), 256)),
        Named("deep after a shallow sibling", ("[[1]," + nestedArrays(256) + "]", 5 + 255)),
    ]

    @Test(arguments: tooDeep)
    func rejectsDepth257AsTooDeep(_ c: Named<(String, Int)>) {
        let error = parseFailure(c.value.0)
        #expect(error?.code == .tooDeep)
        #expect(error?.code.rawValue == "too_deep_json")
        #expect(error?.offset == c.value.1)
        #expect(error?.message == "JSON nesting exceeds the limit of 256")
    }

    /// 100,000 open brackets fail at the limit without recursion (no stack overflow), with and
    /// without the closing brackets and with a generous custom limit.
    @Test func rejectsHundredThousandDeepWithoutStackOverflow() {
        let open = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let closed = open + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        #expect(parseFailure(open)?.code == .tooDeep)
        #expect(parseFailure(closed)?.offset == 256)
        let objects = Array(String(repeating: #"{"a":"#, count: 100_000).utf8)
        #expect(parseFailure(objects)?.code == .tooDeep)
        // With the limit lifted, the parser itself uses no recursion either.
        let lifted = JSONParser.Limits(maxDepth: 1_000_000)
        #expect(parseFailure(open, limits: lifted)?.code == .invalidJSON)
        // A value this deep is built, then dropped on the trailing byte. (Values are destroyed
        // recursively, so this stays at a depth any thread's stack holds.)
        let deep = Array(Self.nestedArrays(2_000).utf8) + [UInt8(ascii: "x")]
        #expect(parseFailure(deep, limits: lifted)?.offset == 4_000)
    }

    @Test func customLimits() throws {
        let three = JSONParser.Limits(maxDepth: 3)
        _ = try JSONParser.parse(Array(Self.nestedArrays(3).utf8), limits: three)
        #expect(parseFailure(Array(Self.nestedArrays(4).utf8), limits: three)?.offset == 3)
        // Scalars are not nesting.
        let zero = JSONParser.Limits(maxDepth: 0)
        #expect(try JSONParser.parse(Array("1".utf8), limits: zero) == 1)
        #expect(parseFailure(Array("[]".utf8), limits: zero)?.code == .tooDeep)
        #expect(JSONParser.Limits().maxDepth == 256)
    }

    /// Large strings parse in time linear in their size, on the plain path, the escape path and
    /// with non-ASCII text. (A caller's size cap normally rejects such documents earlier.)
    @Test func parsesMultiMegabyteStrings() throws {
        // 8 MiB: large enough for every fast path; the 50 MB hostile string is covered by the
        // loader's size-cap test (see the closing note about one unexplained crash here).
        let size = 8 * 1024 * 1024
        var plain = [UInt8](repeating: UInt8(ascii: "a"), count: size + 2)
        plain[0] = UInt8(ascii: "\"")
        plain[size + 1] = UInt8(ascii: "\"")
        #expect(try JSONParser.parse(plain).stringValue?.utf8.count == size)

        // An escape every 64 bytes.
        var escaped = plain
        for i in stride(from: 1, to: size - 1, by: 64) {
            escaped[i] = UInt8(ascii: "\\")
            escaped[i + 1] = UInt8(ascii: "n")
        }
        let unescaped = try #require(try JSONParser.parse(escaped).stringValue)
        #expect(unescaped.utf8.count == size - (size - 2 + 63) / 64)

        // Two-byte characters throughout, inside an object.
        var accented = Array(#"{"k":""#.utf8)
        accented.reserveCapacity(size + 16)
        for _ in 0..<(size / 2) { accented.append(0xC3); accented.append(0xA9) }
        accented.append(contentsOf: Array(#""}"#.utf8))
        #expect(try JSONParser.parse(accented)["k"]?.stringValue?.utf8.count == size)
    }
}
