import StepwiseJSON
import Testing

/// Strings: every escape, `\u` escapes and surrogate pairs, control characters, UTF-8
/// well-formedness (RFC 3629) and the byte order mark.
struct JSONParserStringTests {
    static let escapes: [Named<(String, String)>] = [
        Named(#"\""#, (#""\"""#, "\"")),
        Named(#"\\"#, (#""\\""#, "\\")),
        Named(#"\/"#, (#""\/""#, "/")),
        Named(#"\b"#, (#""\b""#, "\u{08}")),
        Named(#"\f"#, (#""\f""#, "\u{0C}")),
        Named(#"\n"#, (#""\n""#, "\n")),
        Named(#"\r"#, (#""\r""#, "\r")),
        Named(#"\t"#, (#""\t""#, "\t")),
        Named(#"\u0000"#, (#""\u0000""#, "\u{0}")),
        Named(#"\u001F"#, (#""\u001F""#, "\u{1F}")),
        Named(#"\u0041"#, (#""\u0041""#, "A")),
        Named(#"\u00e9 lowercase hex"#, (#""\u00e9""#, "\u{E9}")),
        Named(#"\u00E9 uppercase hex"#, (#""\u00E9""#, "\u{E9}")),
        Named(#"\u20AC"#, (#""\u20AC""#, "€")),
        Named(#"\uFFFF noncharacter"#, (#""\uFFFF""#, "\u{FFFF}")),
        Named(#"\uFEFF inside a string"#, (#""\uFEFF""#, "\u{FEFF}")),
        Named("surrogate pair for 😀", (#""\uD83D\uDE00""#, "😀")),
        Named("surrogate pair, lowercase", (#""\ud83d\ude00""#, "😀")),
        Named("surrogate pair for U+10000", (#""\uD800\uDC00""#, "\u{10000}")),
        Named("surrogate pair for U+10FFFF", (#""\uDBFF\uDFFF""#, "\u{10FFFF}")),
        Named("escapes between raw text", (#""a\tb\u00e9c😀d\"""#, "a\tb\u{E9}c😀d\"")),
        Named("consecutive escapes", (#""\\\\\"\n""#, "\\\\\"\n")),
        Named("raw two-byte UTF-8", (#""é""#, "\u{E9}")),
        Named("raw three-byte UTF-8", (#""€""#, "€")),
        Named("raw four-byte UTF-8", (#""😀""#, "😀")),
        Named("raw DEL", ("\"\u{7F}\"", "\u{7F}")),
        Named("raw U+2028", ("\"\u{2028}\"", "\u{2028}")),
        Named("decomposed é stays decomposed", ("\"e\u{301}\"", "e\u{301}")),
    ]

    @Test(arguments: escapes)
    func decodesEscape(_ c: Named<(String, String)>) throws {
        let value = try JSONParser.parse(c.value.0)
        #expect(identical(value, .string(c.value.1)), "got \(value)")
    }

    static let badEscapes: [Named<(String, Int)>] = [
        Named(#"\x"#, (#""\x""#, 1)),
        Named(#"\U0041"#, (#""\U0041""#, 1)),
        Named(#"\'"#, (#""\'""#, 1)),
        Named("escaped space", (#""\ ""#, 1)),
        Named(#"\u with two digits"#, (#""\u12""#, 1)),
        Named(#"\u with a non-hex digit"#, (#""\u12G4""#, 1)),
        Named(#"\u at end of input"#, (#""\u"#, 1)),
        Named("lone high surrogate", (#""\uD83D""#, 1)),
        Named("lone high surrogate then text", (#""ab\uD83Dxy""#, 3)),
        Named("high surrogate then BMP escape", (#""\uD83D\u0041""#, 1)),
        Named("two high surrogates", (#""\uD83D\uD83D""#, 1)),
        Named("high surrogate then other escape", (#""\uD83D\n""#, 1)),
        Named("lone low surrogate", (#""\uDE00""#, 1)),
        Named("lone low surrogate after text", (#""ab\uDC00""#, 3)),
        Named("low then high", (#""\uDE00\uD83D""#, 1)),
        Named("backslash at end of input", ("\"\\", 0)),
        Named("unterminated string", (#""abc"#, 0)),
        Named("unterminated after escape", (#""a\n"#, 0)),
        Named("unterminated key", (#"{"abc"#, 1)),
    ]

    @Test(arguments: badEscapes)
    func rejectsBadEscapeAtOffset(_ c: Named<(String, Int)>) {
        let error = parseFailure(c.value.0)
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == c.value.1, "\(error.map(String.init(describing:)) ?? "")")
    }

    @Test func surrogateMessagesNameTheEscape() {
        #expect(parseFailure(#""\uD83D""#)?.message == #"lone high surrogate \uD83D"#)
        #expect(parseFailure(#""\udc00""#)?.message == #"lone low surrogate \uDC00"#)
    }

    @Test(arguments: UInt8(0)..<0x20)
    func rejectsUnescapedControlCharacter(_ byte: UInt8) {
        // Plain string, string with an earlier escape, and a member name.
        let cases: [([UInt8], Int)] = [
            (utf8("\"a") + [byte] + utf8("b\""), 2),
            (utf8("\"\\n") + [byte] + utf8("\""), 3),
            (utf8("{\"k") + [byte] + utf8("\":1}"), 3),
        ]
        for (bytes, offset) in cases {
            let error = parseFailure(bytes)
            #expect(error?.code == .invalidJSON)
            #expect(error?.offset == offset)
            #expect(error?.message == "unescaped control character in a string")
        }
    }

    static let invalidUTF8: [Named<[UInt8]>] = [
        Named("lone continuation 80", [0x80]),
        Named("lone continuation BF", [0xBF]),
        Named("overlong NUL C0 80", [0xC0, 0x80]),
        Named("overlong C1 BF", [0xC1, 0xBF]),
        Named("overlong three-byte E0 80 80", [0xE0, 0x80, 0x80]),
        Named("overlong three-byte E0 9F BF", [0xE0, 0x9F, 0xBF]),
        Named("overlong four-byte F0 80 80 80", [0xF0, 0x80, 0x80, 0x80]),
        Named("overlong four-byte F0 8F BF BF", [0xF0, 0x8F, 0xBF, 0xBF]),
        Named("UTF-8 encoded surrogate ED A0 80", [0xED, 0xA0, 0x80]),
        Named("UTF-8 encoded surrogate ED BF BF", [0xED, 0xBF, 0xBF]),
        Named("UTF-8 encoded surrogate pair", [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]),
        Named("above U+10FFFF F4 90 80 80", [0xF4, 0x90, 0x80, 0x80]),
        Named("F5 lead byte", [0xF5, 0x80, 0x80, 0x80]),
        Named("F7 BF BF BF", [0xF7, 0xBF, 0xBF, 0xBF]),
        Named("five-byte form F8", [0xF8, 0x88, 0x80, 0x80, 0x80]),
        Named("FE", [0xFE]),
        Named("FF", [0xFF]),
        Named("truncated two-byte", [0xC3]),
        Named("truncated three-byte", [0xE2, 0x82]),
        Named("truncated four-byte", [0xF0, 0x9F, 0x98]),
        Named("bad second byte C3 28", [0xC3, 0x28]),
        Named("bad third byte E2 82 28", [0xE2, 0x82, 0x28]),
        Named("bad fourth byte F0 9F 98 28", [0xF0, 0x9F, 0x98, 0x28]),
        Named("stray continuation after é", [0xC3, 0xA9, 0xA9]),
    ]

    /// Every ill-formed sequence is reported at its first byte, wherever the string is.
    @Test(arguments: invalidUTF8)
    func rejectsInvalidUTF8AtOffset(_ c: Named<[UInt8]>) {
        let bad = c.value
        // The offset of the first ill-formed byte inside `bad` (after a well-formed prefix).
        let skip = bad.starts(with: [0xC3, 0xA9]) ? 2 : 0
        let cases: [([UInt8], Int)] = [
            (utf8("\"ab") + bad + utf8("\""), 3),
            (utf8("\"ab") + bad + utf8("cd\""), 3),
            (utf8("\"\\n") + bad + utf8("\""), 3),
            (utf8("\"ab") + bad + utf8("\\n\""), 3),
            (utf8("[\"é\",\"x") + bad + utf8("\"]"), 8),
            (utf8("{\"") + bad + utf8("\":1}"), 2),
            (utf8("{\"a\":\"") + bad + utf8("\"}"), 6),
            // An ill-formed sequence comes before a later control character or a missing quote.
            (utf8("\"ab") + bad + utf8("x\n\""), 3),
            (utf8("\"\\tab") + bad + utf8("x\n\""), 5),
            (utf8("\"ab") + bad + utf8("xyz"), 3),
        ]
        for (bytes, offset) in cases {
            let error = parseFailure(bytes)
            #expect(error?.code == .invalidJSON)
            #expect(error?.offset == offset + skip, "\(bytes): \(error.map(String.init(describing:)) ?? "")")
            #expect(error?.message == "invalid UTF-8")
        }
    }

    @Test func rejectsNonASCIIOutsideStrings() {
        #expect(parseFailure(utf8("[") + [0xC3, 0xA9] + utf8("]"))?.offset == 1)
        #expect(parseFailure(utf8("\"a\"") + [0xFF])?.offset == 3)
        #expect(parseFailure([0xFF])?.offset == 0)
    }

    static let wellFormedBoundaries: [Named<([UInt8], Unicode.Scalar)>] = [
        Named("U+0080", ([0xC2, 0x80], "\u{80}")),
        Named("U+07FF", ([0xDF, 0xBF], "\u{7FF}")),
        Named("U+0800", ([0xE0, 0xA0, 0x80], "\u{800}")),
        Named("U+D7FF", ([0xED, 0x9F, 0xBF], "\u{D7FF}")),
        Named("U+E000", ([0xEE, 0x80, 0x80], "\u{E000}")),
        Named("U+FFFF", ([0xEF, 0xBF, 0xBF], "\u{FFFF}")),
        Named("U+10000", ([0xF0, 0x90, 0x80, 0x80], "\u{10000}")),
        Named("U+10FFFF", ([0xF4, 0x8F, 0xBF, 0xBF], "\u{10FFFF}")),
    ]

    @Test(arguments: wellFormedBoundaries)
    func acceptsWellFormedBoundary(_ c: Named<([UInt8], Unicode.Scalar)>) throws {
        let expected = String(Character(c.value.1))
        #expect(try JSONParser.parse(utf8("\"") + c.value.0 + utf8("\"")) == .string(expected))
        #expect(try JSONParser.parse(utf8("\"\\t") + c.value.0 + utf8("\"")) == .string("\t" + expected))
    }

    static let byteOrderMarks: [Named<([UInt8], Int)>] = [
        Named("BOM before object", ([0xEF, 0xBB, 0xBF] + utf8("{}"), 0)),
        Named("BOM before scalar", ([0xEF, 0xBB, 0xBF] + utf8("1"), 0)),
        Named("BOM alone", ([0xEF, 0xBB, 0xBF], 0)),
        Named("BOM after whitespace", (utf8(" ") + [0xEF, 0xBB, 0xBF] + utf8("{}"), 1)),
        Named("UTF-16 BOM", ([0xFE, 0xFF] + utf8("{}"), 0)),
    ]

    @Test(arguments: byteOrderMarks)
    func rejectsByteOrderMark(_ c: Named<([UInt8], Int)>) {
        let error = parseFailure(c.value.0)
        #expect(error?.code == .invalidJSON)
        #expect(error?.offset == c.value.1)
    }

    @Test func byteOrderMarkMessage() {
        #expect(parseFailure([0xEF, 0xBB, 0xBF] + utf8("{}"))?.message == "a byte order mark is not allowed")
    }
}
