import StepwiseJSON
import Testing

/// RFC 6901 JSON pointers: escaping, parsing, resolution and ordering.
struct JSONPointerTests {
    static let texts: [Named<(String, [String])>] = [
        Named("root", ("", [])),
        Named("empty token", ("/", [""])),
        Named("two empty tokens", ("//", ["", ""])),
        Named("member", ("/foo", ["foo"])),
        Named("index", ("/foo/0", ["foo", "0"])),
        Named("~1 is a slash", ("/a~1b", ["a/b"])),
        Named("~0 is a tilde", ("/m~0n", ["m~n"])),
        Named("~01 is ~1, not a slash", ("/~01", ["~1"])),
        Named("~10 is /0", ("/~10", ["/0"])),
        Named("both escapes", ("/~0~1~0", ["~/~"])),
        Named("percent is literal", ("/c%d", ["c%d"])),
        Named("other punctuation", ("/e^f/g|h/i\\j/k\"l", ["e^f", "g|h", "i\\j", "k\"l"])),
        Named("space", ("/ ", [" "])),
        Named("non-ASCII", ("/é/😀", ["é", "😀"])),
        Named("slash before a combining mark", ("/a~1\u{301}", ["a/\u{301}"])),
        Named("tilde before a combining mark", ("/~0\u{301}", ["~\u{301}"])),
        Named("blocks path", ("/blocks/3/routes/0/condition", ["blocks", "3", "routes", "0", "condition"])),
    ]

    @Test(arguments: texts)
    func parsesAndPrints(_ c: Named<(String, [String])>) throws {
        let pointer = try #require(JSONPointer(parsing: c.value.0))
        #expect(pointer.tokens == c.value.1)
        #expect(pointer.tokens.map { Array($0.utf8) } == c.value.1.map { Array($0.utf8) })
        #expect(JSONPointer(tokens: c.value.1).description.utf8.elementsEqual(c.value.0.utf8))
    }

    static let invalidTexts: [String] = ["a", "foo/bar", "#/foo", "/~", "/~2", "/a~", "/~a", "/~/", " /a"]

    @Test(arguments: invalidTexts)
    func rejectsInvalidText(_ text: String) {
        #expect(JSONPointer(parsing: text) == nil)
    }

    /// Any tokens survive printing and parsing, including `~`, `/` and combining marks next to
    /// them.
    @Test(arguments: 0..<10)
    func randomTokensRoundTrip(seed: Int) throws {
        var random = RandomJSON(seed: UInt64(seed) &+ 900)
        for _ in 0..<200 {
            let tokens = (0..<Int.random(in: 0...4, using: &random.rng)).map { _ in
                random.string() + (Bool.random(using: &random.rng) ? "/\u{301}~" : "")
            }
            let pointer = JSONPointer(tokens: tokens)
            let parsed = try #require(JSONPointer(parsing: pointer.description))
            #expect(parsed == pointer)
            #expect(parsed.tokens.map { Array($0.utf8) } == tokens.map { Array($0.utf8) })
        }
    }

    @Test func appending() {
        let p = JSONPointer.root.appending("blocks").appending(3).appending("a/b~")
        #expect(p.tokens == ["blocks", "3", "a/b~"])
        #expect(p.description == "/blocks/3/a~1b~0")
        #expect(JSONPointer.root.description == "")
        #expect(JSONPointer.root.tokens.isEmpty)
    }

    /// The example document of RFC 6901 §5.
    static let rfcDocument: JSONValue = [
        "foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8,
    ]

    static let resolutions: [Named<(String, JSONValue?)>] = [
        Named("whole document", ("", rfcDocument)),
        Named("/foo", ("/foo", ["bar", "baz"])),
        Named("/foo/0", ("/foo/0", "bar")),
        Named("/", ("/", 0)),
        Named("/a~1b", ("/a~1b", 1)),
        Named("/c%d", ("/c%d", 2)),
        Named("/e^f", ("/e^f", 3)),
        Named("/g|h", ("/g|h", 4)),
        Named("/i\\j", ("/i\\j", 5)),
        Named("/k\"l", ("/k\"l", 6)),
        Named("/ ", ("/ ", 7)),
        Named("/m~0n", ("/m~0n", 8)),
        Named("index past the end", ("/foo/2", nil)),
        Named("leading zero index", ("/foo/01", nil)),
        Named("plus-signed index", ("/foo/+1", nil)),
        Named("negative index", ("/foo/-1", nil)),
        Named("dash (past the end)", ("/foo/-", nil)),
        Named("non-numeric index", ("/foo/x", nil)),
        Named("huge index", ("/foo/99999999999999999999", nil)),
        Named("into a string", ("/foo/0/0", nil)),
        Named("into a number", ("/m~0n/x", nil)),
        Named("missing member", ("/nope", nil)),
        Named("unescaped a/b is two tokens", ("/a/b", nil)),
    ]

    @Test(arguments: resolutions)
    func resolves(_ c: Named<(String, JSONValue?)>) throws {
        let pointer = try #require(JSONPointer(parsing: c.value.0))
        let resolved = pointer.resolve(in: Self.rfcDocument)
        if let expected = c.value.1 {
            #expect(resolved.map { identical($0, expected) } == true, "got \(String(describing: resolved))")
        } else {
            #expect(resolved == nil)
        }
    }

    @Test func resolvesNumericMemberNamesInObjects() {
        let document: JSONValue = ["01": "a", "-": "b", "0": ["10": [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]]
        #expect(JSONPointer(parsing: "/01")?.resolve(in: document) == "a")
        #expect(JSONPointer(parsing: "/-")?.resolve(in: document) == "b")
        #expect(JSONPointer(parsing: "/0/10/10")?.resolve(in: document) == 15)
    }

    /// Sorted pointers, in the order they must come out.
    static let orderings: [Named<[String]>] = [
        Named("root first, then by token", ["", "/a", "/a/b", "/b"]),
        Named("indices numerically", ["/blocks/2", "/blocks/10", "/blocks/10/a", "/blocks/100"]),
        Named("indices before names", ["/x/0", "/x/9", "/x/10", "/x/-", "/x/01", "/x/1a", "/x/a"]),
        Named("names by UTF-8 bytes", ["/B", "/a", "/b", "/e\u{301}", "/~0", "/é", "/\u{FFFF}", "/\u{10000}"]),
        Named("huge indices by value", ["/9", "/99999999999999999999", "/100000000000000000000"]),
    ]

    @Test(arguments: orderings)
    func ordersPointers(_ c: Named<[String]>) throws {
        let pointers = try c.value.map { try #require(JSONPointer(parsing: $0)) }
        for (i, a) in pointers.enumerated() {
            for (j, b) in pointers.enumerated() {
                #expect((a < b) == (i < j), "\(a) < \(b)")
                #expect((a == b) == (i == j))
            }
        }
        #expect(pointers.reversed().sorted() == pointers)
    }

    /// `<` is a strict total order consistent with `==`, over tokens that mix indices, names
    /// that look like numbers, and canonically equivalent spellings.
    @Test func orderingIsAStrictTotalOrder() {
        let tokens = ["", "0", "1", "9", "10", "01", "1a", "a", "-", "+1", "\u{E9}", "e\u{301}", "~", "/"]
        var pointers: [JSONPointer] = [.root]
        for a in tokens {
            pointers.append(JSONPointer(tokens: [a]))
            for b in ["0", "x"] { pointers.append(JSONPointer(tokens: [a, b])) }
        }
        for a in pointers {
            #expect(!(a < a))
            for b in pointers {
                let relations = [a < b, a == b, b < a].filter { $0 }.count
                #expect(relations == 1, "\(a) vs \(b)")
                guard a < b else { continue }
                for c in pointers where b < c {
                    #expect(a < c, "\(a) < \(b) < \(c)")
                }
            }
        }
    }

    @Test func equalityAndHashingUseBytes() {
        let nfc = JSONPointer(tokens: ["\u{E9}"])
        let nfd = JSONPointer(tokens: ["e\u{301}"])
        #expect(nfc != nfd)
        #expect(Set([nfc, nfd, JSONPointer(tokens: ["\u{E9}"])]).count == 2)
        #expect(JSONPointer(parsing: "/a/0") == JSONPointer.root.appending("a").appending(0))
        #expect(JSONPointer(tokens: ["a", "b"]) != JSONPointer(tokens: ["a/b"]))
        #expect(JSONPointer(tokens: ["a", "b"]).hashValue == JSONPointer(parsing: "/a/b")?.hashValue)
    }
}
