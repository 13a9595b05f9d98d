import StepwiseJSON
import Testing

/// The writer: escaping, numbers, and the `sortedKeys`, `integralDoublesAsIntegers` and
/// `prettyPrinted` options.
struct JSONWriterTests {
    static let escaping: [Named<(String, String)>] = [
        Named("quote", ("\"", #""\"""#)),
        Named("backslash", ("\\", #""\\""#)),
        Named("slash stays literal", ("/", #""/""#)),
        Named("backspace", ("\u{8}", #""\b""#)),
        Named("tab", ("\t", #""\t""#)),
        Named("line feed", ("\n", #""\n""#)),
        Named("form feed", ("\u{C}", #""\f""#)),
        Named("carriage return", ("\r", #""\r""#)),
        Named("NUL", ("\u{0}", #""\u0000""#)),
        Named("U+0001", ("\u{1}", #""\u0001""#)),
        Named("vertical tab", ("\u{B}", #""\u000b""#)),
        Named("U+001F lowercase hex", ("\u{1F}", #""\u001f""#)),
        Named("DEL stays literal", ("\u{7F}", "\"\u{7F}\"")),
        Named("U+2028 stays literal", ("\u{2028}", "\"\u{2028}\"")),
        Named("non-ASCII stays literal", ("é€😀", "\"é€😀\"")),
        Named("mixed", ("a\"b\\c\nd\u{1}e", #""a\"b\\c\nd\u0001e""#)),
        Named("empty", ("", #""""#)),
    ]

    @Test(arguments: escaping)
    func escapesStrings(_ c: Named<(String, String)>) {
        #expect(JSONWriter.string(.string(c.value.0)) == c.value.1)
    }

    @Test(arguments: UInt8(0)..<0x20)
    func everyControlCharacterIsEscapedAndReadsBack(_ byte: UInt8) throws {
        let s = String(Character(Unicode.Scalar(byte)))
        let text = JSONWriter.string(.string(s))
        #expect(!text.utf8.contains { $0 < 0x20 })
        #expect(identical(try JSONParser.parse(text), .string(s)))
    }

    static let scalars: [Named<(JSONValue, String)>] = [
        Named("null", (nil, "null")),
        Named("true", (true, "true")),
        Named("false", (false, "false")),
        Named("zero", (0, "0")),
        Named("negative", (-42, "-42")),
        Named("Int64.max", (.integer(.max), "9223372036854775807")),
        Named("Int64.min", (.integer(.min), "-9223372036854775808")),
        Named("1.0 keeps its fraction", (1.0, "1.0")),
        Named("0.1", (0.1, "0.1")),
        Named("-0.0", (.double(-0.0), "-0.0")),
        Named("1.5", (1.5, "1.5")),
        Named("1e-7", (1e-7, "1e-07")),
        Named("1e21", (1e21, "1e+21")),
        Named("5e-324", (.double(.leastNonzeroMagnitude), "5e-324")),
        Named("greatest finite", (.double(.greatestFiniteMagnitude), "1.7976931348623157e+308")),
        Named("0.30000000000000004", (0.30000000000000004, "0.30000000000000004")),
        Named("2^63 as double", (.double(9_223_372_036_854_775_808), "9.223372036854776e+18")),
        Named("infinity becomes null", (.double(.infinity), "null")),
        Named("NaN becomes null", (.double(.nan), "null")),
        Named("empty array", ([], "[]")),
        Named("empty object", ([:], "{}")),
    ]

    @Test(arguments: scalars)
    func writesScalars(_ c: Named<(JSONValue, String)>) {
        #expect(JSONWriter.string(c.value.0) == c.value.1)
    }

    static let integralDoubles: [Named<(Double, String)>] = [
        Named("1.0", (1.0, "1")),
        Named("-3.0", (-3.0, "-3")),
        Named("-0.0", (-0.0, "0")),
        Named("1.5 unchanged", (1.5, "1.5")),
        Named("2^53 - 1", (9_007_199_254_740_991, "9007199254740991")),
        Named("2^53", (9_007_199_254_740_992, "9007199254740992")),
        Named("1e16, shortest digits padded", (1e16, "10000000000000000")),
        Named("-1.2345678901234567e19, shortest digits padded", (-1.2345678901234567e19, "-12345678901234567000")),
        Named("1e21 keeps its exponent", (1e21, "1e+21")),
        Named("1e300 stays a double", (1e300, "1e+300")),
        Named("2^53 + 0.5e0 stays integral", (9_007_199_254_740_993.5, "9007199254740994")),
        Named("tiny stays a double", (.leastNonzeroMagnitude, "5e-324")),
    ]

    @Test(arguments: integralDoubles)
    func integralDoublesAsIntegers(_ c: Named<(Double, String)>) {
        #expect(JSONWriter.string(.double(c.value.0), options: .integralDoublesAsIntegers) == c.value.1)
        // Integers are unaffected, and nested doubles are converted too.
        #expect(JSONWriter.string([.double(c.value.0), 7], options: .integralDoublesAsIntegers) == "[\(c.value.1),7]")
    }

    @Test func compactKeepsInsertionOrder() {
        let value: JSONValue = ["b": 1, "a": [true, nil], "c": ["z": 1, "y": 2]]
        #expect(JSONWriter.string(value) == #"{"b":1,"a":[true,null],"c":{"z":1,"y":2}}"#)
        #expect(value.description == JSONWriter.string(value))
    }

    /// Keys sort by UTF-8 bytes: uppercase before lowercase, a prefix first, and U+FFFF before
    /// U+10000 (UTF-16 order would put the surrogate pair first).
    @Test func sortedKeysUseUTF8ByteOrder() {
        let keys = ["b", "a", "B", "é", "aa", "", "\u{10000}", "\u{FFFF}", "e\u{301}", "~"]
        var object = JSONObject()
        for (i, k) in keys.enumerated() { object[k] = .integer(Int64(i)) }
        let text = JSONWriter.string(.object(object), options: .sortedKeys)
        let order = try? JSONParser.parse(text).objectValue?.keys
        #expect(order == ["", "B", "a", "aa", "b", "e\u{301}", "~", "é", "\u{FFFF}", "\u{10000}"])
    }

    static let canonical: JSONValue = [
        "b": [1, ["z": nil, "a": true]],
        "a": "x\u{1}\"\\/é\u{2028}😀",
        "": [:],
        "B": [],
    ]

    /// SYNC §3.11 canonical JSON equals Python's
    /// `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
    @Test func sortedCompactMatchesPythonCanonicalForm() {
        let expected = "{\"\":{},\"B\":[],\"a\":\"x\\u0001\\\"\\\\/é\u{2028}😀\",\"b\":[1,{\"a\":true,\"z\":null}]}"
        #expect(JSONWriter.string(Self.canonical, options: .sortedKeys) == expected)
    }

    @Test func prettyPrintedSorted() {
        let expected = """
            {
              "": {},
              "B": [],
              "a": "x\\u0001\\"\\\\/é\u{2028}😀",
              "b": [
                1,
                {
                  "a": true,
                  "z": null
                }
              ]
            }
            """
        #expect(JSONWriter.string(Self.canonical, options: [.prettyPrinted, .sortedKeys]) == expected)
    }

    @Test func prettyPrintedKeepsOrderAndNesting() {
        let value: JSONValue = ["z": [[], [1.0]], "a": ["k": [:]]]
        let expected = """
            {
              "z": [
                [],
                [
                  1.0
                ]
              ],
              "a": {
                "k": {}
              }
            }
            """
        #expect(JSONWriter.string(value, options: .prettyPrinted) == expected)
        #expect(JSONWriter.string(1, options: .prettyPrinted) == "1")
        #expect(
            JSONWriter.string(value, options: [.prettyPrinted, .integralDoublesAsIntegers])
                == expected.replacing("1.0", with: "1"))
    }

    @Test func writeAppendsToExistingBytes() {
        var out = Array("prefix:".utf8)
        JSONWriter.write(["a": 1], into: &out)
        JSONWriter.write([2, "x"], into: &out, options: .prettyPrinted)
        #expect(String(decoding: out, as: UTF8.self) == "prefix:{\"a\":1}[\n  2,\n  \"x\"\n]")
    }

    @Test func bytesAndStringAgree() {
        let value: JSONValue = ["k": ["é", 1.25, -7, nil]]
        #expect(JSONWriter.bytes(value) == Array(JSONWriter.string(value).utf8))
    }
}
